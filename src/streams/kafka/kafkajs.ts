/**
 * Where kafkajs is loaded, once, for the adapter's other files, and the one place where Sluice's replacements of
 * kafkajs 2.2.4 (pinned) internals go in, all in one way: a module of kafkajs gets a new export, made from its own,
 * before the module of kafkajs that captures that export loads. So they take effect only when this module loads
 * before kafkajs' clients, and nothing else in Sluice imports kafkajs' values. What replaces each is written beside
 * the concern it serves:
 *
 * - the connections' RequestQueue (request-queue.ts), which ran an empty check every millisecond and made Node 24
 *   warn;
 * - the producer's grouping of a request's records per partition, quadratic in kafkajs, and the produce request's
 *   encoding (produce-request.ts), which wrote every record through several temporary buffers: 40 % of a word
 *   count's CPU;
 * - the fetch response's record sets and the consumer's Batch (consumer-records.ts), which made a Decoder, three Longs
 *   and a spread headers object per record: a third of the bytes a word count allocated. Sluice's read each record
 *   with the codec (record-batch.ts) into one object, the record a task processes, and filter read_committed
 *   (aborted-transactions.ts) walking the aborted transactions by first offset, where kafkajs handed out records of
 *   aborted transactions;
 * - the JoinGroup request (broker-requests.ts), given a static member's group.instance.id;
 * - the ConsumerGroup (join-hooks.ts), calling the hooks of its member's assigner around joins, heartbeats and leave.
 *
 * All give kafkajs' results where kafkajs was right (see their tests); the fetched records carry the same values in
 * Sluice's shape.
 */
import { UnsupportedKafkaClient } from '../../errors';
import { joinGroupWithInstanceId } from './broker-requests';
import { DecodedBatch, recordSetDecoder } from './consumer-records';
import { hookedConsumerGroup } from './join-hooks';
import { groupMessagesPerPartition, oneBufferProduceRequest } from './produce-request';
import { idleRequestQueue } from './request-queue';

/**
 * Puts `replace(kafkajs' export)` in place of a kafkajs module's export, unless the module that captures it loaded
 * already.
 */
function replaceKafkajsModule<T>(module: string, capturedBy: string, replace: (original: T) => T): boolean {
  if (require.cache[require.resolve(capturedBy)]) return false;
  const original = require(module) as T;
  const cached = require.cache[require.resolve(module)];
  if (!cached) return false;
  cached.exports = replace(original);
  return true;
}

/** Whether kafkajs runs with Sluice's replacements (false: kafkajs was loaded before this module). */
export const kafkajsFixesInstalled = [
  replaceKafkajsModule('kafkajs/src/network/requestQueue', 'kafkajs/src/network/connection', idleRequestQueue),
  replaceKafkajsModule('kafkajs/src/producer/groupMessagesPerPartition', 'kafkajs/src/producer/sendMessages', () => groupMessagesPerPartition),
  replaceKafkajsModule('kafkajs/src/protocol/requests/produce/v3/request', 'kafkajs/src/protocol/requests/produce/v4/request', oneBufferProduceRequest),
  replaceKafkajsModule('kafkajs/src/protocol/requests/fetch/v4/decodeMessages', 'kafkajs/src/protocol/requests/fetch/v11/response', recordSetDecoder),
  replaceKafkajsModule('kafkajs/src/protocol/requests/joinGroup', 'kafkajs/src/protocol/requests/index', joinGroupWithInstanceId),
  // Before the ConsumerGroup below, which captures the Batch as it loads.
  replaceKafkajsModule('kafkajs/src/consumer/batch', 'kafkajs/src/consumer/consumerGroup', () => DecodedBatch),
  replaceKafkajsModule('kafkajs/src/consumer/consumerGroup', 'kafkajs/src/consumer/index', hookedConsumerGroup),
].every((installed) => installed);

/** The one kafkajs version whose internals Sluice replaces (package.json pins it). */
export const KAFKAJS_VERSION = '2.2.4';

export { AssignerProtocol, ConfigResourceTypes, Kafka, KafkaJSConnectionError, logLevel } from 'kafkajs';

/** The kafkajs this process runs: its version, and whether Sluice's replacements are in place. */
export interface KafkajsState {
  readonly version: string;
  readonly fixesInstalled: boolean;
}

export const kafkajsState: KafkajsState = {
  version: (require('kafkajs/package.json') as { version: string }).version,
  fixesInstalled: kafkajsFixesInstalled,
};

/**
 * Refuses a kafkajs that Sluice cannot run on: another version than the one its replacements are written for, or a
 * kafkajs loaded before Sluice, whose consumers then hand out kafkajs' own records (offsets as strings, no topic on
 * the record) and its read_committed filter hands out records of aborted transactions.
 */
export function checkKafkajs(state: KafkajsState = kafkajsState): void {
  if (state.version !== KAFKAJS_VERSION) {
    throw new UnsupportedKafkaClient(`Sluice replaces internals of kafkajs ${KAFKAJS_VERSION} and finds kafkajs ${state.version}; install kafkajs ${KAFKAJS_VERSION} exactly`);
  }
  if (!state.fixesInstalled) {
    throw new UnsupportedKafkaClient('kafkajs was loaded before Sluice, so Sluice could not put its fetch decoding (the records its stream threads process, and the read_committed filter) and its produce encoding in place. Import Sluice before kafkajs');
  }
}
