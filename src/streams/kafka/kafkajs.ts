/**
 * Where kafkajs is loaded, once, for the adapter's other files: it first replaces one kafkajs function that is
 * quadratic. kafkajs 2.2.4 (pinned) groups a produce request's messages per partition by copying the
 * partition's array for every message; with thousands of records per request that copying took a tenth of a
 * word count's CPU. The replacement groups in one pass and gives the same result (see its test). It can
 * only take effect before kafkajs' producer module loads, so nothing else in Sluice imports kafkajs' values.
 */
import type { Message, PartitionMetadata } from 'kafkajs';

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

const GROUPING_MODULE = 'kafkajs/src/producer/groupMessagesPerPartition';
const SEND_MODULE = 'kafkajs/src/producer/sendMessages';

function installLinearGrouping(): boolean {
  // Jest keeps its own module registry, where require.cache is not consulted: there kafkajs' own runs.
  const sendPath = require.resolve(SEND_MODULE);
  if (require.cache[sendPath]) return false;
  const groupingPath = require.resolve(GROUPING_MODULE);
  require(GROUPING_MODULE);
  const cached = require.cache[groupingPath];
  if (!cached) return false;
  cached.exports = groupMessagesPerPartition;
  return true;
}

/** Whether kafkajs' producer groups messages with Sluice's linear function (false: kafkajs was loaded first). */
export const linearGroupingInstalled = installLinearGrouping();

export { AssignerProtocol, ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
