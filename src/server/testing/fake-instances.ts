/** In-memory stand-ins for the host's instances, for the server's unit tests (no broker, no runtime). */

import { EventEmitter } from 'node:events';
import { ApplicationExists, UnknownApplication, UnknownTopology } from '../../errors';
import { MetricsRegistry } from '../../streams/metrics/metrics-registry';
import type { ConsumerOffsets, InstanceView, StorePartitionStatus, ThreadMetadata } from '../../streams/runtime/instance-view';
import type { ConfigValue, StreamsConfig } from '../../streams/runtime/streams-config';
import type { StreamsMetadata } from '../../streams/runtime/streams-metadata';
import type { TimelineEntry } from '../../streams/runtime/rebalance-timeline';
import type { TopologyDescription } from '../../streams/topology/description';
import type {
  DeployRequest,
  InstanceRegistry,
  InstanceState,
  InstanceStateChange,
  LocalInstance,
  LocalInstanceEvents,
  StopOptions,
  StoreQueries,
  StoreQueryAnswer,
  StoreQueryResult,
  TopologyInfo,
} from '../context';

export const WORD_COUNT: TopologyInfo = {
  name: 'io.sluice.examples.WordCount',
  version: '1.0.0',
  description: 'Counts words',
  aliases: ['word-count', 'WordCount'],
};

export const DAG: TopologyDescription = {
  subTopologies: [
    {
      id: 0,
      nodes: [
        { type: 'SOURCE', name: 'KSTREAM-SOURCE-0000000000', predecessors: [], successors: ['KSTREAM-AGGREGATE-0000000001'], topics: ['lines'] },
        { type: 'PROCESSOR', name: 'KSTREAM-AGGREGATE-0000000001', predecessors: ['KSTREAM-SOURCE-0000000000'], successors: ['KSTREAM-SINK-0000000002'], stores: ['counts'] },
        { type: 'SINK', name: 'KSTREAM-SINK-0000000002', predecessors: ['KSTREAM-AGGREGATE-0000000001'], successors: [], topic: 'words' },
      ],
    },
  ],
  globalStores: [],
};

const THREADS: ThreadMetadata[] = [
  {
    name: 'wc-StreamThread-1',
    state: 'RUNNING',
    activeTasks: [{ taskId: '0_0', topicPartitions: [{ topic: 'lines', partition: 0 }] }],
    standbyTasks: [],
    clients: {
      consumerClientId: 'wc-StreamThread-1-consumer',
      producerClientIds: ['wc-StreamThread-1-producer'],
      restoreConsumerClientId: 'wc-StreamThread-1-restore-consumer',
      adminClientId: 'wc-admin',
    },
  },
];

const HOSTS: StreamsMetadata[] = [
  {
    processId: 'p1',
    endpoint: 'localhost:8080',
    host: 'localhost',
    port: 8080,
    grpcEndpoint: undefined,
    stateStoreNames: ['counts'],
    topicPartitions: [
      { topic: 'lines', partition: 2 },
      { topic: 'lines', partition: 0 },
    ],
    standbyStateStoreNames: [],
    standbyTopicPartitions: [],
    isLocal: true,
  },
  {
    processId: 'p2',
    endpoint: 'other:8080',
    host: 'other',
    port: 8080,
    grpcEndpoint: undefined,
    stateStoreNames: ['counts'],
    topicPartitions: [{ topic: 'lines', partition: 1 }],
    standbyStateStoreNames: [],
    standbyTopicPartitions: [],
    isLocal: false,
  },
];

/** A rebalance after another node left, and the restore of the task it brought. */
export const TIMELINE: TimelineEntry[] = [
  {
    type: 'rebalance',
    id: 1,
    processId: 'p1',
    endpoint: 'localhost:8080',
    startedAt: 1_700_000_000_000,
    endedAt: 1_700_000_000_250,
    durationMs: 250,
    generation: 4,
    causes: [{ type: 'member_left', processId: 'p2', endpoint: 'other:8080', members: 1 }],
    gained: [{ taskId: '0_1', role: 'active', restore: { records: 40, done: false } }],
    lost: [],
  },
  {
    type: 'restore',
    id: 2,
    processId: 'p1',
    endpoint: 'localhost:8080',
    taskId: '0_1',
    store: 'counts',
    topic: 'wc-counts-changelog',
    partition: 1,
    startOffset: 0,
    endOffset: 100,
    restored: 40,
    remaining: 60,
    rate: 20,
    estimatedRemainingMs: 3000,
    done: false,
    startedAt: 1_700_000_000_300,
    endedAt: undefined,
    durationMs: 2000,
  },
];

/** A view with fixed answers and a real metrics registry (a few gauges, a text metric, a zero, a NaN). */
export function fakeView(applicationId: string, values: Readonly<Record<string, ConfigValue>>): InstanceView {
  const metrics = new MetricsRegistry();
  const client = { 'client-id': `${applicationId}-1` };
  metrics.gauge('stream-metrics', client, { name: 'version', description: 'The version' }, () => '0.1.0');
  metrics.gauge('stream-metrics', client, { name: 'alive-stream-threads', description: 'Alive threads' }, () => 1);
  const thread = { 'thread-id': 'wc-StreamThread-1' };
  metrics.gauge('stream-thread-metrics', thread, { name: 'process-total', description: 'Records processed' }, () => 42);
  metrics.gauge('stream-thread-metrics', thread, { name: 'process-rate', description: 'Records per second' }, () => 501.46875);
  metrics.gauge('stream-thread-metrics', thread, { name: 'commit-total', description: 'Commits' }, () => 0);
  metrics.gauge('stream-thread-metrics', thread, { name: 'poll-latency-avg', description: 'Poll latency' }, () => NaN);
  const offsets: ConsumerOffsets = {
    group: applicationId,
    consumers: [
      {
        clientId: 'wc-StreamThread-1-consumer',
        streamThread: 'wc-StreamThread-1',
        positions: [
          {
            topic: 'lines',
            partition: 0,
            consumedOffset: 9,
            consumedTimestamp: 1_700_000_000_000,
            committedOffset: 10,
            committedTimestamp: 1_700_000_000_500,
            logEndOffset: 12,
            logStartOffset: 0,
            lag: 2,
          },
        ],
      },
    ],
  };
  const stores: StorePartitionStatus[] = [
    {
      store: 'counts',
      partition: 0,
      changelog: `${applicationId}-counts-changelog`,
      currentOffset: 5,
      logEndOffset: 7,
      lag: 2,
      lastRestoration: { topic: `${applicationId}-counts-changelog`, partition: 0, startingOffset: 0, endingOffset: 5, totalRestored: 5, durationMs: 12 },
    },
  ];
  return {
    applicationId,
    config: { applicationId, values } as StreamsConfig,
    state: 'RUNNING',
    stateSince: 1_700_000_000_000,
    createdAt: 1_700_000_000_000,
    lastError: undefined,
    metrics,
    describe: () => DAG,
    threads: () => THREADS,
    offsets: async () => offsets,
    storeStatus: async () => stores,
    timeline: () => TIMELINE,
    allMetadata: () => HOSTS,
    metadataForStore: () => HOSTS,
    keyQueryMetadata: () => undefined,
    sourceTopicsForStore: () => undefined,
    storePartitionCount: () => undefined,
    hasStore: (store) => store === 'counts',
    isGlobalStore: () => false,
    queryableStores: () => new Map(),
    queryableStore: () => undefined,
    standbyReplicas: () => new Map(),
    workerStores: () => [],
  };
}

export class FakeInstance implements LocalInstance {
  readonly topology = WORD_COUNT;
  readonly description: string | null = null;
  readonly createdAt = Date.UTC(2026, 10, 22, 1, 30, 0, 123);
  stateSince = this.createdAt;
  lastChange: InstanceStateChange = { state: 'RUNNING', previous: 'REBALANCING', since: this.createdAt };
  reachedRunning = true;
  lastError: Error | undefined;
  view: InstanceView | undefined;
  readonly config: Record<string, ConfigValue>;
  private readonly events = new EventEmitter();
  private current: InstanceState = 'RUNNING';

  constructor(readonly id: string) {
    this.config = {
      'application.id': id,
      'application.server': 'localhost:8080',
      'bootstrap.servers': 'localhost:9092',
      'num.stream.threads': 1,
      'stats.enable': false,
      'producer.ssl.key.password': 'secret-1',
      'consumer.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required password="x";',
      'consumer.ssl.keystore.key': '-----BEGIN PRIVATE KEY-----secret-2',
      'metrics.sse.interval.ms': 50,
    };
    this.view = fakeView(id, this.config);
  }

  get state(): InstanceState {
    return this.current;
  }

  /** Moves to a state and tells the subscribers, as the host does. */
  moveTo(state: InstanceState, since = Date.now()): void {
    const change = { state, previous: this.current, since };
    this.current = state;
    this.stateSince = since;
    this.lastChange = change;
    if (state === 'STOPPED') this.view = undefined;
    this.events.emit('state', change);
  }

  emit<E extends keyof LocalInstanceEvents>(event: E, payload: LocalInstanceEvents[E]): void {
    this.events.emit(event, payload);
  }

  listenerCount(): number {
    return this.events.listenerCount('state') + this.events.listenerCount('rebalance') + this.events.listenerCount('restore') + this.events.listenerCount('thread') + this.events.listenerCount('timeline');
  }

  describe(): TopologyDescription {
    return DAG;
  }

  eventTypes(): readonly string[] {
    return [];
  }

  on<E extends keyof LocalInstanceEvents>(event: E, listener: (payload: LocalInstanceEvents[E]) => void): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }
}

export class FakeRegistry implements InstanceRegistry {
  readonly instances = new Map<string, FakeInstance>();
  readonly stops: { id: string; options: StopOptions }[] = [];
  readonly deploys: DeployRequest[] = [];

  constructor(...ids: string[]) {
    for (const id of ids) this.instances.set(id, new FakeInstance(id));
  }

  list(): LocalInstance[] {
    return [...this.instances.values()];
  }

  get(id: string): FakeInstance | undefined {
    return this.instances.get(id);
  }

  restart(id: string): LocalInstance {
    const instance = this.required(id);
    instance.moveTo('PENDING_SHUTDOWN');
    return instance;
  }

  async stop(id: string, options: StopOptions): Promise<LocalInstance> {
    const instance = this.required(id);
    this.stops.push({ id, options });
    instance.moveTo('STOPPED');
    return instance;
  }

  async remove(id: string): Promise<void> {
    this.required(id);
    this.instances.delete(id);
  }

  async deploy(request: DeployRequest): Promise<string> {
    this.deploys.push(request);
    if (request.type !== WORD_COUNT.name && !WORD_COUNT.aliases.includes(request.type)) throw new UnknownTopology(`'${request.type}'`);
    const id = String(request.config?.['application.id'] ?? request.name ?? 'word-count');
    if (this.instances.has(id)) throw new ApplicationExists(id);
    this.instances.set(id, new FakeInstance(id));
    return id;
  }

  topologies(): TopologyInfo[] {
    return [WORD_COUNT];
  }

  private required(id: string): FakeInstance {
    const instance = this.instances.get(id);
    if (!instance) throw new UnknownApplication(id);
    return instance;
  }
}

/** Answers every query with one local part; records the calls. */
export class FakeQueries implements StoreQueries {
  readonly calls: { applicationId: string; store: string; body: unknown }[] = [];

  async stream(applicationId: string, store: string, body: unknown, options: { recordsOnly: boolean }): Promise<StoreQueryAnswer> {
    this.calls.push({ applicationId, store, body });
    const result: StoreQueryResult = {
      took: 3,
      timeout: false,
      server: 'localhost:8080',
      status: 'SUCCESS',
      result: {
        store,
        type: 'key_value',
        total: 1,
        success: [{ server: 'localhost:8080', remote: false, total: 1, records: [{ key: 'kafka', value: 3 }] }],
        failure: [],
      },
    };
    async function* chunks() {
      // In two chunks, as a streamed answer comes.
      const text = JSON.stringify(options.recordsOnly ? result.result.success.flatMap((part) => part.records) : result);
      yield text.slice(0, 10);
      yield text.slice(10);
    }
    return { streamed: true, body: chunks() };
  }
}
