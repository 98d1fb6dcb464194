/**
 * A worker thread that runs one stream thread: its own Kafka clients, tasks and stores, built from the topology
 * module the instance names. Records never leave it; it tells the main thread its state, tasks, metrics and log
 * lines, and asks it for what needs the whole instance (the leader's assignment, committed offsets, standbys). Its
 * records' spans it exports itself (worker-tracing.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StreamsException } from '../../../errors';
import { createKafkaClients, readableKafkaLogs, type SluiceLogLevel, type TopicPartition } from '../../kafka';
import { MetricsRegistry } from '../../metrics/metrics-registry';
import { serdeByName } from '../../serdes/serde-by-name';
import { StateDirectory } from '../state-directory';
import type { MemoryLimits } from '../memory-budget';
import { loadStoreConfigSetter } from '../store-statistics';
import { StreamThread } from '../stream-thread';
import { parseStreamsConfig } from '../streams-config';
import { type SubscriptionFacts, subscriptionInfo } from '../assignment/subscription-info';
import { kafkaThreadClients } from '../thread-clients';
import { TopologyMetadata } from '../topology-metadata';
import type { ThreadStoreReader, ThreadStores } from '../queryable-stores';
import { Channel, type Port } from './channel';
import { KAFKA_COMPONENT, relayingLogger } from './log-relay';
import type { MainCalls, MainNotes, WorkerSetup } from './protocol';
import { loadExport, loadTopology } from './topology-source';
import { transferError } from './transferred-error';
import { startWorkerTracing } from './worker-tracing';

/** How often the thread's metrics reach the main thread's registry. */
const METRICS_INTERVAL_MS = 1_000;

function run(setup: WorkerSetup, port: Port): void {
  const config = parseStreamsConfig(setup.config);
  const metadata = new TopologyMetadata(loadTopology(setup.topology), config.applicationId);
  const stateDirectory = new StateDirectory(config.stateDir, config.applicationId, setup.processRun);
  const partitionCounts = new Map(setup.partitionCounts);
  const metrics = new MetricsRegistry();
  let facts: SubscriptionFacts = setup.facts;
  let thread: StreamThread | undefined;
  let channel!: Channel<MainCalls, MainNotes>;
  const logger = relayingLogger(setup.logLevel, (line) => channel.note('log', line), setup.tracing !== undefined);
  const report = (): void => {
    if (thread) channel.note('report', thread.state, thread.activeTasks(), thread.heldTasks());
  };
  const readers = new Map<number, AsyncGenerator<unknown, unknown, undefined> | Generator<unknown, unknown, undefined>>();
  let nextReader = 1;
  const stores: ThreadStores = { queryableStores: (store) => thread!.queryableStores(store) };
  channel = new Channel<MainCalls, MainNotes>(port, {
    prepare: () => thread!.prepare(),
    start: () => thread!.start(),
    close: async (leaveGroup: boolean) => {
      try {
        await thread!.close(leaveGroup);
        clearInterval(metricsTimer);
      } finally {
        // Before the reply, after which the main thread terminates the worker: the last spans are exported first.
        await tracing?.tracer.shutdown();
      }
    },
    subscribeTo: (topics: string[]) => thread!.subscribeTo(topics),
    positions: () => thread!.positions(),
    storePositions: () => thread!.storePositions(),
    openReader: (module: string, exportName: string, args: unknown[]) => {
      const reader = loadExport<ThreadStoreReader>(module, exportName)(stores, ...(args as never[]));
      readers.set(nextReader, reader);
      return nextReader++;
    },
    pullReader: async (id: number) => {
      try {
        const next = await readers.get(id)!.next();
        if (next.done) readers.delete(id);
        return next;
      } catch (error) {
        // A reader that threw is done.
        readers.delete(id);
        throw error;
      }
    },
    closeReader: async (id: number) => {
      await readers.get(id)?.return(undefined);
      readers.delete(id);
    },
    facts: (next: SubscriptionFacts) => (facts = next),
    partitionCounts: (counts: [string, number][]) => counts.forEach(([topic, count]) => partitionCounts.set(topic, count)),
    resizeCache: (maxBytes: number) => thread!.resizeCache(maxBytes),
    limitMemory: (limits: MemoryLimits) => thread!.limitMemory(limits),
    requestRejoin: () => thread!.requestRejoin(),
    sendShutdownRequest: () => thread!.sendShutdownRequest(),
  });
  // Once the channel carries the SDK's complaints, and before the thread, whose tasks trace under its provider.
  const tracing = setup.tracing === undefined ? undefined : startWorkerTracing(setup.tracing, config.applicationId, logger);
  const kafka = createKafkaClients(
    {
      bootstrapServers: config.bootstrapServers,
      clientId: setup.clientId,
      logger: readableKafkaLogs(logger.child({ component: KAFKA_COMPONENT }, { level: setup.kafkaLogLevel })),
      logLevel: setup.kafkaLogLevel as SluiceLogLevel,
      onSecurityFailure: (error) => channel.note('fatal', transferError(error)),
    },
    config.security,
  );
  thread = new StreamThread({
    index: setup.index,
    number: setup.number,
    clientId: setup.clientId,
    config,
    metadata,
    kafka,
    clients: kafkaThreadClients(kafka, config, async (members, partitionCount, topics) => {
      const counts = topics.map((topic): [string, number] => [topic, partitionCount(topic)]);
      const decided = await channel.call('assign', members.map((m) => ({ memberId: m.memberId, userData: m.userData })), counts, [...topics]);
      return new Map(decided.map(([member, a]) => [member, { partitions: a.partitions, ...(a.userData ? { userData: Buffer.from(a.userData) } : {}) }]));
    }),
    stateDirectory,
    cacheBytes: setup.cacheBytes,
    ...(setup.fetchBytes === undefined ? {} : { fetchBytes: setup.fetchBytes }),
    defaultKeySerde: serdeByName(config.defaultKeySerde),
    defaultValueSerde: serdeByName(config.defaultValueSerde),
    partitionCounts,
    metrics,
    logger,
    subscription: (previousTasks) => subscriptionInfo(facts, stateDirectory, previousTasks),
    committedOffsets: (partitions: readonly TopicPartition[]) => channel.call('committedOffsets', [...partitions]),
    ...(config.embeddedStoreConfigSetter ? { configureStore: loadStoreConfigSetter(config.embeddedStoreConfigSetter) } : {}),
    ...(setup.standbys ? { standbys: { release: (taskId: string) => channel.call('releaseStandby', taskId) } } : {}),
    ...(tracing ? { recordTracing: tracing.records } : {}),
    publishEvent: (event) => channel.note('topologyEvent', event),
  });
  thread.on('state', report);
  thread.on('assignment', (applied) => {
    report();
    channel.note('assignment', applied);
  });
  thread.on('restore', (store, progress) => channel.note('restore', store, progress));
  thread.on('fatal', (error) => channel.note('fatal', transferError(error)));
  thread.on('groupWait', (reason) => channel.note('groupWait', reason));
  const metricsTimer = setInterval(() => channel.note('metrics', metrics.metrics()), METRICS_INTERVAL_MS);
  metricsTimer.unref();
}

if (!parentPort) throw new StreamsException('the stream thread worker runs only as a worker thread');
run(workerData as WorkerSetup, parentPort);
