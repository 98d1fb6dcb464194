/**
 * What a client of the API may set in the configuration of an instance it deploys: streams and client tuning,
 * nothing else. Anything that names a file, a directory or a module (`state.dir`, `log.dir`,
 * `embeddedstore.config.setter`, key stores, class names), an endpoint (`bootstrap.servers`, `application.server`)
 * or a credential comes only from the node's own configuration, which the API cannot change.
 */

import { ConfigKeyNotAllowed } from '../errors';
import { CLIENT_ROLE_PREFIXES } from '../streams/config/config-keys';
import { lookupConfigKey } from '../streams/config/config-lookup';
import type { ConfigValue } from '../streams/runtime/streams-config';

/** Kafka Streams settings a client may choose per instance. */
export const DEPLOYABLE_STREAMS_KEYS: readonly string[] = [
  'application.id',
  'num.stream.threads',
  'processing.guarantee',
  'commit.interval.ms',
  'cache.max.bytes.buffering',
  'statestore.cache.max.bytes',
  'task.timeout.ms',
  'max.task.idle.ms',
  'buffered.records.per.partition',
  'poll.ms',
  'session.timeout.ms',
  'heartbeat.interval.ms',
  'replication.factor',
  'num.standby.replicas',
  'default.key.serde',
  'default.value.serde',
  'default.deserialization.exception.handler',
  'default.production.exception.handler',
  'processing.exception.handler',
  'metrics.recording.level',
  'metrics.sse.interval.ms',
  'stats.enable',
  'stats.dumpPeriodSec',
];

/** Client prefixes of Kafka Streams, under which the tuning settings below may be overridden. */
export const DEPLOYABLE_CLIENT_PREFIXES: readonly string[] = [...new Set(Object.values(CLIENT_ROLE_PREFIXES).flat())].filter((prefix) => prefix !== '');

/** Kafka client settings that tune throughput and timing, and name nothing on the node. */
export const DEPLOYABLE_CLIENT_KEYS: readonly string[] = [
  'fetch.min.bytes',
  'fetch.max.bytes',
  'max.partition.fetch.bytes',
  'fetch.max.wait.ms',
  'max.poll.records',
  'max.poll.interval.ms',
  'session.timeout.ms',
  'heartbeat.interval.ms',
  'linger.ms',
  'batch.size',
  'buffer.memory',
  'compression.type',
  'max.request.size',
  'delivery.timeout.ms',
  'request.timeout.ms',
  'default.api.timeout.ms',
  'retry.backoff.ms',
  'retry.backoff.max.ms',
  'reconnect.backoff.ms',
  'reconnect.backoff.max.ms',
  'connections.max.idle.ms',
  'metadata.max.age.ms',
  'receive.buffer.bytes',
  'send.buffer.bytes',
  'socket.connection.setup.timeout.ms',
  'socket.connection.setup.timeout.max.ms',
  'client.rack',
];

/** Configurations of the internal topics (`topic.` prefix) a client may choose. */
export const DEPLOYABLE_TOPIC_KEYS: readonly string[] = [
  'topic.retention.ms',
  'topic.retention.bytes',
  'topic.segment.bytes',
  'topic.segment.ms',
  'topic.min.insync.replicas',
  'topic.max.message.bytes',
  'topic.compression.type',
];

const STREAMS_KEYS = new Set([...DEPLOYABLE_STREAMS_KEYS, ...DEPLOYABLE_TOPIC_KEYS]);
const CLIENT_KEYS = new Set(DEPLOYABLE_CLIENT_KEYS);

function isDeployableKey(key: string): boolean {
  if (STREAMS_KEYS.has(key)) return true;
  const prefix = DEPLOYABLE_CLIENT_PREFIXES.find((candidate) => key.startsWith(candidate));
  return prefix !== undefined && CLIENT_KEYS.has(key.slice(prefix.length));
}

/**
 * Refuses (400, naming the key) the first key of a deploy body's configuration that a client may not set. A key no
 * configuration table knows means nothing to the runtime: the configuration's own check refuses it, with the valid
 * key closest to it.
 */
export function checkDeployConfig(config: Readonly<Record<string, ConfigValue>> | undefined): void {
  for (const key of Object.keys(config ?? {})) {
    if (lookupConfigKey(key) !== undefined && !isDeployableKey(key)) throw new ConfigKeyNotAllowed(key);
  }
}
