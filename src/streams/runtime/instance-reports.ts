import type { ConsumerOffsets, StorePartitionStatus, ThreadMetadata } from './instance-view';
import type { StandbyTaskStatus } from './standby-task';
import { StoreStatisticsDumper } from './store-statistics';
import { StreamThread } from './stream-thread';
import type { StreamThreadHandle } from './stream-thread-handle';
import type { StreamsConfig } from './streams-config';

/** Low and high watermark per partition of a topic. */
export type EndOffsets = (topic: string) => Promise<Map<number, { low: number; high: number }>>;

/**
 * A thread as Kafka Streams' ThreadMetadata shows it: its state, tasks and clients. Standbys belong to the node,
 * not to a thread: the caller passes them with its first thread.
 */
export function threadMetadata(thread: StreamThreadHandle, clientId: string, exactlyOnce: boolean, standbys: readonly StandbyTaskStatus[] = []): ThreadMetadata {
  const tasks = thread.activeTasks();
  return {
    name: thread.name,
    state: thread.state,
    activeTasks: tasks.map((t) => ({ taskId: t.taskId, topicPartitions: t.partitions.map((tp) => ({ topic: tp.topic, partition: tp.partition })) })),
    standbyTasks: standbys.map((s) => ({ taskId: s.taskId, topicPartitions: s.topicPartitions.map((tp) => ({ topic: tp.topic, partition: tp.partition })), lag: s.lag })),
    clients: {
      consumerClientId: `${thread.name}-consumer`,
      producerClientIds: exactlyOnce ? tasks.map((t) => `${thread.name}-${t.taskId}-producer`) : [`${thread.name}-producer`],
      restoreConsumerClientId: `${thread.name}-restore-consumer`,
      adminClientId: `${clientId}-admin`,
    },
  };
}

/** Each thread's consumed and committed positions beside the partitions' log offsets, and the lag between. */
export async function consumerOffsets(group: string, threads: readonly StreamThreadHandle[], endOffsets: EndOffsets): Promise<ConsumerOffsets> {
  const consumers: ConsumerOffsets['consumers'] = [];
  for (const thread of threads) {
    const positions = [];
    for (const { topic, partition, state } of await thread.positions()) {
      const log = (await endOffsets(topic)).get(partition);
      const end = log?.high ?? -1;
      positions.push({
        topic,
        partition,
        ...state,
        logEndOffset: end,
        logStartOffset: log?.low ?? -1,
        lag: end < 0 ? -1 : Math.max(end - state.consumedOffset - 1, 0),
      });
    }
    positions.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    consumers.push({ clientId: `${thread.name}-consumer`, streamThread: thread.name, positions });
  }
  return { group, consumers };
}

/** Every local store partition: how far it holds its changelog, and its lag behind the changelog's end. */
export async function storeStatus(threads: readonly StreamThreadHandle[], endOffsets: EndOffsets): Promise<StorePartitionStatus[]> {
  const result: StorePartitionStatus[] = [];
  for (const thread of threads) {
    for (const { store, partition, changelog, currentOffset: current, lastRestoration, restoring, sizeBytes } of await thread.storePositions()) {
      const end = changelog ? ((await endOffsets(changelog)).get(partition)?.high ?? -1) : -1;
      result.push({
        store,
        partition,
        changelog,
        currentOffset: current,
        logEndOffset: end,
        lag: end < 0 || current < 0 ? -1 : Math.max(end - current, 0),
        ...(lastRestoration ? { lastRestoration } : {}),
        ...(restoring ? { restoring } : {}),
        ...(sizeBytes !== undefined ? { sizeBytes } : {}),
      });
    }
  }
  return result.sort((a, b) => a.store.localeCompare(b.store) || a.partition - b.partition);
}

/** The stores' statistics, dumped with `stats.enable`: the stores of the threads on this event loop. */
export function storeStatisticsDumper(config: StreamsConfig, threads: () => readonly StreamThreadHandle[]): StoreStatisticsDumper | undefined {
  if (!config.statsEnable) return undefined;
  return new StoreStatisticsDumper({
    logDir: config.logDir,
    applicationId: config.applicationId,
    periodSec: config.statsDumpPeriodSec,
    maxFileSize: config.logMaxFileSize,
    stores: () =>
      threads()
        .filter((t) => t instanceof StreamThread)
        .flatMap((t) => [...t.tasks.all()].flatMap((active) => [...active.task.stores.values()].map((store) => ({ taskId: active.name, store })))),
  });
}
