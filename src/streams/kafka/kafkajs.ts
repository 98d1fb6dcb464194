/**
 * Where kafkajs is loaded, once, for the adapter's other files. It first replaces four internals of
 * kafkajs 2.2.4 (pinned), which other modules of kafkajs capture when they load: so the replacement only takes
 * effect before kafkajs' producer and consumer load, and nothing else in Sluice imports kafkajs' values.
 *
 * - `groupMessagesPerPartition` copied a partition's array for every message of a produce request (quadratic):
 *   with thousands of records per request that took a tenth of a word count's CPU. Sluice's groups in one pass.
 * - The produce request's encoding (produce-request.ts) wrote every record through several temporary buffers:
 *   40 % of a word count's CPU. Sluice's writes the same bytes into one buffer.
 * - The fetch response's record batches and the consumer's Batch (consumer-records.ts) made a Decoder, three
 *   Longs and a spread headers object per record: a third of the bytes a word count allocated. Sluice's read each
 *   record with one cursor into one object, the record a task processes (offsets and timestamps as numbers, key
 *   and value read from the fetch when asked for), and compare offsets as numbers.
 * - The Batch's `filterAbortedMessages` (read_committed, below) walked the fetch's aborted transactions in the
 *   order the broker lists them, which is the order they ended, as if it were the order they began: the records of
 *   an aborted transaction that began before another one but ended after it were handed out, and exactly-once
 *   output was read twice. Sluice's Batch walks them by first offset.
 *
 * All give kafkajs' results where kafkajs was right (see their tests); the fetched records carry the same values in
 * Sluice's shape.
 *
 * It also replaces one method on its class, which takes effect whenever it is done: the request queue's
 * `scheduleCheckPendingRequests` (below).
 */
import type { Message, PartitionMetadata } from 'kafkajs';
import { UnsupportedKafkaClient } from '../../errors';
import { fetchedBatchClass, recordSetDecoder } from './consumer-records';
import { oneBufferProduceRequest } from './produce-request';

type Partitioner = (args: { topic: string; partitionMetadata: PartitionMetadata[]; message: Message }) => number;

interface GroupArgs {
  topic: string;
  partitionMetadata: PartitionMetadata[];
  messages: Message[];
  partitioner: Partitioner;
}

/** kafkajs' `groupMessagesPerPartition`, in linear time: partition → its messages, in their order. */
export function groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner }: GroupArgs): Record<number, Message[]> {
  const result: Record<number, Message[]> = {};
  if (partitionMetadata.length === 0) return result;
  for (const message of messages) (result[partitioner({ topic, partitionMetadata, message })] ??= []).push(message);
  return result;
}

/** A fetched record, with what the filter needs. */
export interface FetchedRecord {
  offset: number;
  key: Buffer | null;
  isControlRecord?: boolean;
  batchContext: { producerId: string; inTransaction: boolean };
}

export interface AbortedTransaction {
  producerId: string;
  firstOffset: string;
}

const ABORT_MARKER_KEY = Buffer.from([0, 0, 0, 0]);

/**
 * kafkajs' `filterAbortedMessages`, walking the aborted transactions by first offset: from a transaction's first
 * offset on, its producer's transactional records are dropped, until that producer's abort marker.
 */
export function filterAbortedMessages<M extends FetchedRecord>({ messages, abortedTransactions }: { messages: M[]; abortedTransactions?: AbortedTransaction[] }): M[] {
  if (!abortedTransactions || abortedTransactions.length === 0) return messages;
  const pending = abortedTransactions.map((t) => ({ producerId: t.producerId, firstOffset: Number(t.firstOffset) })).sort((a, b) => a.firstOffset - b.firstOffset);
  const aborting = new Set<string>();
  let next = 0;
  return messages.filter((message) => {
    while (next < pending.length && message.offset >= pending[next]!.firstOffset) aborting.add(pending[next++]!.producerId);
    const { producerId, inTransaction } = message.batchContext;
    const key = message.key;
    if (message.isControlRecord && key !== null && key.equals(ABORT_MARKER_KEY)) {
      aborting.delete(producerId);
      return true;
    }
    return !(inTransaction && aborting.has(producerId));
  });
}

/**
 * Puts `replace(kafkajs' export)` in place of a kafkajs module's export, unless a module that captures it loaded
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

/** kafkajs' `RequestQueue`, as far as its scheduling of pending requests goes. */
export interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** How long kafkajs waits before it looks again at requests that wait for an in-flight slot. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/**
 * kafkajs' `RequestQueue.scheduleCheckPendingRequests`, setting a timer only while requests wait: for the
 * throttle's end, else kafkajs' 10 ms. kafkajs set one after every response even with nothing waiting, for
 * `throttledUntil - Date.now()`, which unthrottled is about minus the epoch: Node 24 and later print a
 * TimeoutNegativeWarning for it (older ones took 1 ms silently), and as each check set the next, every connection
 * ran an empty check every millisecond from its first response on.
 */
export function scheduleCheckPendingRequests(this: KafkajsRequestQueue): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

(require('kafkajs/src/network/requestQueue') as { prototype: KafkajsRequestQueue }).prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;

/** The one kafkajs version whose internals Sluice replaces (package.json pins it). */
export const KAFKAJS_VERSION = '2.2.4';

/** Whether kafkajs runs with Sluice's four replacements (false: kafkajs was loaded before this module). */
export const kafkajsFixesInstalled =
  replaceKafkajsModule('kafkajs/src/producer/groupMessagesPerPartition', 'kafkajs/src/producer/sendMessages', () => groupMessagesPerPartition) &&
  replaceKafkajsModule('kafkajs/src/protocol/requests/produce/v3/request', 'kafkajs/src/protocol/requests/produce/v4/request', oneBufferProduceRequest) &&
  replaceKafkajsModule('kafkajs/src/protocol/requests/fetch/v4/decodeMessages', 'kafkajs/src/protocol/requests/fetch/v11/response', recordSetDecoder) &&
  replaceKafkajsModule('kafkajs/src/consumer/batch', 'kafkajs/src/consumer/consumerGroup', () => fetchedBatchClass(filterAbortedMessages));

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
