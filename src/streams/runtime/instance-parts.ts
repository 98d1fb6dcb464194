import pino from 'pino';
import type { Logger } from 'pino';
import { createKafkaClients, defaultKafkaLogLevel, readableKafkaLogs, type KafkaClients, type OAuthBearerTokenProvider, type SluiceLogLevel } from '../kafka';
import { MetricsRegistry } from '../metrics/metrics-registry';
import type { Serde } from '../serdes/serde';
import { serdeByName } from '../serdes/serde-by-name';
import type { Topology } from '../topology/topology';
import type { ExceptionHandlers } from './exception-handlers';
import { StateDirectory } from './state-directory';
import { loadStoreConfigSetter, type StoreConfigSetter } from './store-statistics';
import { parseStreamsConfig, type StreamsConfig } from './streams-config';
import { TopologyMetadata } from './topology-metadata';
import type { TopologySource } from './worker/topology-source';
import type { TracerSource } from './worker/worker-tracing';
import { RecordTracing, type RecordTracingOptions } from './record-tracing';
import type { MemoryBudget } from './memory-budget';

export interface StreamsInstanceOptions {
  logger?: Logger;
  /** Where kafkajs' lines go, at its level (log.components.kafka); default the instance's logger, at warn. */
  kafkaLogger?: Logger;
  /** The token for SASL/OAUTHBEARER (`sasl.mechanism=OAUTHBEARER` without a `file:` token endpoint); called per login. */
  oauthBearerTokenProvider?: OAuthBearerTokenProvider;
  /** Handlers in code, in place of those the configuration names (Kafka Streams takes a class name; Sluice also a function). */
  exceptionHandlers?: Partial<ExceptionHandlers>;
  /**
   * A module that builds the same topology: the stream threads past the first each run in a worker thread, which
   * builds the topology from it, so that `num.stream.threads` threads use as many cores. Without it every thread
   * shares this event loop.
   */
  topologySource?: TopologySource;
  /**
   * Trace the records the tasks process (OpenTelemetry, through its API's registered tracer provider): a record with
   * a trace context as the sampler decides, one without at `startRatio`. A stream thread in a worker, whose isolate
   * has no tracer provider, starts one of its own from `workerTracer`; without it, a worker's records are not traced.
   */
  traceRecords?: RecordTracingOptions & { readonly workerTracer?: TracerSource };
  /** The node's memory budget, which every thread of the instance joins; none: the configuration's bounds alone. */
  memoryBudget?: MemoryBudget;
}

/** What an instance builds once from its configuration, and builds each of its threads, tasks and stores with. */
export interface InstanceParts {
  readonly config: StreamsConfig;
  /** `<application.id>-<process id>`: the prefix of every client's and thread's name. */
  readonly clientId: string;
  readonly stateDirectory: StateDirectory;
  readonly defaultKeySerde: Serde<unknown>;
  readonly defaultValueSerde: Serde<unknown>;
  /** `embeddedstore.config.setter`: adjusts each store's options before it opens. */
  readonly configureStore?: StoreConfigSetter;
  readonly metrics: MetricsRegistry;
  readonly logger: Logger;
  /** Undefined when the records are not traced. */
  readonly recordTracing?: RecordTracing;
}

/** What an instance's threads are built from: its parts, and its topology, clients and topics. */
export interface ThreadParts extends InstanceParts {
  /** The configuration as given, which a worker parses again. */
  readonly givenConfig: Readonly<Record<string, unknown>>;
  readonly metadata: TopologyMetadata;
  readonly kafka: KafkaClients;
  /** Every topic's partition count, which the instance keeps up to date. */
  readonly partitionCounts: Map<string, number>;
  readonly kafkaLogger: Logger;
}

/**
 * An instance's parts, from its topology, configuration and options: what construction validates (the
 * configuration, the serdes, the store configuration setter) fails here. `onSecurityFailure`: a refused login or an
 * untrusted certificate, which no retry cures.
 */
export function instanceParts(
  topology: Topology,
  givenConfig: Readonly<Record<string, unknown>>,
  options: StreamsInstanceOptions,
  onSecurityFailure: (error: Error) => void,
): ThreadParts & { readonly processId: string } {
  const parsed = parseStreamsConfig(givenConfig);
  const config = { ...parsed, exceptionHandlers: { ...parsed.exceptionHandlers, ...options.exceptionHandlers } };
  const applicationId = config.applicationId;
  const logger = (options.logger ?? pino({ level: 'info' })).child({ applicationId });
  const kafkaLogger = options.kafkaLogger?.child({ applicationId }) ?? logger.child({}, { level: defaultKafkaLogLevel(logger.level) });
  if (config.notApplied.length > 0) {
    logger.warn({ keys: config.notApplied }, `configuration not applied by Sluice (accepted for Kafka Streams compatibility): ${config.notApplied.join(', ')}`);
  }
  if (config.ignoredUnderStreams.length > 0) {
    logger.warn(
      { keys: config.ignoredUnderStreams },
      `configuration ignored under group.protocol=streams (the group coordinator's streams.* settings decide; no static membership): ${config.ignoredUnderStreams.join(', ')}`,
    );
  }
  const defaultKeySerde = serdeByName(config.defaultKeySerde);
  const defaultValueSerde = serdeByName(config.defaultValueSerde);
  const stateDirectory = new StateDirectory(config.stateDir, applicationId);
  const configureStore = config.embeddedStoreConfigSetter ? loadStoreConfigSetter(config.embeddedStoreConfigSetter) : undefined;
  const processId = stateDirectory.processId([...topology.stores()].some((s) => s.persistent));
  const clientId = `${applicationId}-${processId}`;
  const kafka = createKafkaClients(
    {
      bootstrapServers: config.bootstrapServers,
      clientId,
      logger: readableKafkaLogs(kafkaLogger),
      logLevel: kafkaLogger.level as SluiceLogLevel,
      ...(options.oauthBearerTokenProvider ? { oauthBearerTokenProvider: options.oauthBearerTokenProvider } : {}),
      onSecurityFailure,
    },
    config.security,
  );
  return {
    config,
    givenConfig,
    processId,
    clientId,
    metadata: new TopologyMetadata(topology, applicationId),
    kafka,
    stateDirectory,
    defaultKeySerde,
    defaultValueSerde,
    ...(configureStore ? { configureStore } : {}),
    partitionCounts: new Map(),
    metrics: new MetricsRegistry(),
    logger,
    kafkaLogger,
    ...(options.traceRecords === undefined ? {} : { recordTracing: new RecordTracing(applicationId, options.traceRecords) }),
  };
}
