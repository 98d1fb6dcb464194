import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IllegalState } from '../../errors';
import { cacheMaxBytes } from '../config/config-lookup';
import { RecordArray } from '../kafka';
import type { Headers } from '../processor/record';
import type { Serde } from '../serdes/serde';
import { serdeByName } from '../serdes/serde-by-name';
import type {
  KeyValueStore,
  SessionStore,
  VersionedKeyValueStore,
  StateStore,
  ValueAndTimestamp,
  WindowStore,
} from '../state/store';
import { ThreadCache } from '../state/thread-cache';
import { OUTER_JOIN_EMIT_INTERVAL_CONFIG } from '../kstream/internals/stream-stream-join';
import type { Topology } from '../topology/topology';
import { checkApplicationId } from '../runtime/application-id';
import type { ConsumedRecord } from '../runtime/consumed-record';
import type { TopologyEvent } from '../runtime/instance-view';
import { namedHandlers } from '../runtime/exception-handlers';
import { type CollectedRecord, producedRecord, type RecordCollector } from '../runtime/record-collector';
import { pathInside } from '../runtime/state-directory';
import { prepareSerdes } from '../runtime/serde-lookups';
import { StreamTask } from '../runtime/task';
import { TopologyMetadata } from '../runtime/topology-metadata';
import type { InputTopicOptions } from './test-topics';
import { TestInputTopic, TestOutputTopic } from './test-topics';

type RawRecord = { key: Buffer | null; value: Buffer | null; timestamp: number; headers: Headers };

/**
 * Runs a topology without a broker (Kafka Streams' `TopologyTestDriver`): every topic has one partition, so
 * each sub-topology is one task, and each global store is kept by a task of its own (state directory `global`) whose
 * stores every other task's processors may read; records written to topics the topology reads (repartition topics) are
 * processed at once, and every piped record is processed to the end before `pipeInput` returns. As in Kafka
 * Streams' driver, the tasks share one record cache of `statestore.cache.max.bytes` (one thread's), it commits after
 * every record it processes (record caches flush downstream each time), and
 * outer and left stream-stream joins emit their unmatched records without the runtime's 1 s emit interval,
 * unless the configuration sets `__emit.interval.ms.kstreams.outer.join.spurious.results.fix__`.
 */
export class TopologyTestDriver {
  private readonly events: TopologyEvent[] = [];
  readonly applicationId: string;
  private readonly tasks: StreamTask[] = [];
  private readonly taskByTopic = new Map<string, StreamTask>();
  private readonly outputs = new Map<string, RawRecord[]>();
  private readonly offsets = new Map<string, number>();
  private readonly pending: ConsumedRecord[] = [];
  private readonly stateDir: string;
  private wallClockMs: number;
  private closed = false;

  constructor(
    topology: Topology,
    config: Record<string, unknown> = {},
    initialWallClockMs: number = Date.now(),
  ) {
    this.applicationId = checkApplicationId(String(config['application.id'] ?? 'topology-test-driver'));
    this.wallClockMs = initialWallClockMs;
    this.stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-test-driver-'));
    const defaultKeySerde = serdeByName(String(config['default.key.serde'] ?? 'string'));
    const defaultValueSerde = serdeByName(String(config['default.value.serde'] ?? 'string'));
    const collector: RecordCollector = {
      send: (record) => this.capture(record),
      partitionCount: () => 1,
    };
    const exceptionHandlers = namedHandlers((key) => (config[key] === undefined ? undefined : String(config[key])));
    const deadLetterQueueTopic = config['errors.dead.letter.queue.topic.name'];
    const metadata = new TopologyMetadata(topology, this.applicationId);
    const taskConfig = { [OUTER_JOIN_EMIT_INTERVAL_CONFIG]: 0, ...config };
    // Global stores first: every task's processors may read them from their init on.
    const globalStores = new Map<string, StateStore>();
    const cache = new ThreadCache(cacheMaxBytes(config));
    const globalSubtopologies = topology.globalStores().map(({ id, sourceName, processorName, topic, storeName }) => ({
      sub: { id, nodes: [sourceName, processorName], sourceTopics: [topic], sourcePatterns: [], stores: [storeName] },
      dir: 'global',
    }));
    const subtopologies = metadata.subtopologies.map(({ definition: sub }) => ({ sub, dir: `${sub.id}_0` }));
    for (const { sub, dir } of [...globalSubtopologies, ...subtopologies]) {
      const id = { subtopology: sub.id, partition: 0 };
      const taskDir = pathInside(this.stateDir, this.applicationId, dir);
      fs.mkdirSync(taskDir, { recursive: true });
      const task = new StreamTask(id, sub, topology, {
        applicationId: this.applicationId,
        config: taskConfig,
        defaultKeySerde,
        defaultValueSerde,
        collector,
        cache,
        taskDir,
        resolveTopic: (t) => metadata.topicName(t),
        changelogTopic: (s) => metadata.changelogTopic(s),
        exceptionHandlers,
        ...(deadLetterQueueTopic === undefined ? {} : { deadLetterQueueTopic: String(deadLetterQueueTopic) }),
        wallClock: () => this.wallClockMs,
        globalStores,
        publishEvent: (event) => this.events.push(event),
      });
      task.initializeStores();
      if (dir === 'global') for (const [name, store] of task.stores) globalStores.set(name, store);
      task.initializeProcessors();
      this.tasks.push(task);
      for (const topic of sub.sourceTopics) this.taskByTopic.set(metadata.topicName(topic), task);
    }
  }

  /**
   * Has the serdes that look things up (`Serde.prepare`: a Schema Registry's) resolve what they need for the topics and
   * stores, as a stream thread has them do before its tasks process (waiting out a registry that does not answer):
   * await it before piping input to such serdes.
   */
  async prepareSerdes(): Promise<void> {
    for (const task of this.tasks) await prepareSerdes(task, undefined);
  }

  createInputTopic<K, V>(
    topic: string,
    keySerde: Serde<K>,
    valueSerde: Serde<V>,
    options: InputTopicOptions = {},
  ): TestInputTopic<K, V> {
    return new TestInputTopic<K, V>(
      topic,
      keySerde,
      valueSerde,
      (t, key, value, timestamp, headers) => this.pipe(t, key, value, timestamp, headers),
      options.startTimestamp ?? this.wallClockMs,
      options.autoAdvanceMs ?? 0,
    );
  }

  createOutputTopic<K, V>(topic: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestOutputTopic<K, V> {
    return new TestOutputTopic<K, V>(topic, keySerde, valueSerde, this.outputQueue(topic));
  }

  /** The records processors published to an event type of the topology so far, in order (Sluice only). */
  publishedEvents(eventType: string): TopologyEvent[] {
    return this.events.filter((event) => event.type === eventType);
  }

  /** Moves the wall clock forward and runs the wall-clock punctuations that are due. */
  advanceWallClockTime(ms: number): void {
    this.checkOpen();
    this.wallClockMs += ms;
    for (const task of this.tasks) task.punctuateWallClock(this.wallClockMs);
    this.commit();
    this.drain();
  }

  getStateStore<S extends StateStore = StateStore>(name: string): S {
    for (const task of this.tasks) {
      const store = task.stores.get(name);
      if (store) return store as S;
    }
    throw new IllegalState(`no store named '${name}' in the topology`);
  }

  getKeyValueStore<K, V>(name: string): KeyValueStore<K, V> {
    return this.getStateStore<KeyValueStore<K, V>>(name);
  }

  getTimestampedKeyValueStore<K, V>(name: string): KeyValueStore<K, ValueAndTimestamp<V>> {
    return this.getStateStore<KeyValueStore<K, ValueAndTimestamp<V>>>(name);
  }

  getWindowStore<K, V>(name: string): WindowStore<K, V> {
    return this.getStateStore<WindowStore<K, V>>(name);
  }

  /** Kafka Streams' `getVersionedKeyValueStore`. */
  getVersionedKeyValueStore<K, V>(name: string): VersionedKeyValueStore<K, V> {
    return this.getStateStore<VersionedKeyValueStore<K, V>>(name);
  }

  getSessionStore<K, V>(name: string): SessionStore<K, V> {
    return this.getStateStore<SessionStore<K, V>>(name);
  }

  /** Records the topology skipped (deserialization errors, invalid timestamps, null keys in aggregations). */
  get droppedRecords(): number {
    return this.tasks.reduce((n, t) => n + t.droppedRecords, 0);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const task of this.tasks) await task.close();
    fs.rmSync(this.stateDir, { recursive: true, force: true });
  }

  private pipe(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: Headers): void {
    this.checkOpen();
    if (!this.taskByTopic.has(topic)) throw new IllegalState(`topic '${topic}' is not an input topic of the topology`);
    this.enqueue(topic, key, value, timestamp, headers);
    this.drain();
  }

  private enqueue(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers: Headers): void {
    const offset = this.offsets.get(topic) ?? 0;
    this.offsets.set(topic, offset + 1);
    this.pending.push({ topic, partition: 0, offset, timestamp, key, value, headers });
  }

  /**
   * Processes the piped record and, breadth-first, whatever it made the topology write to its own inputs,
   * committing after each record as Kafka Streams' driver does, records read back from repartition topics included.
   */
  private drain(): void {
    while (this.pending.length > 0) {
      const record = this.pending.shift()!;
      const task = this.taskByTopic.get(record.topic)!;
      task.addRecords(new RecordArray(record.topic, record.partition, [record]));
      task.process();
      this.commit();
    }
  }

  /** Flushes the tasks' record caches: their updates go downstream now (and may write to repartition topics). */
  private commit(): void {
    for (const task of this.tasks) task.prepareCommit();
  }

  private capture(collected: CollectedRecord): void {
    const record = producedRecord(collected);
    const raw = { key: record.key, value: record.value, timestamp: record.timestamp, headers: record.headers };
    if (this.taskByTopic.has(record.topic)) this.enqueue(record.topic, raw.key, raw.value, raw.timestamp, raw.headers);
    this.outputQueue(record.topic).push(raw);
  }

  private outputQueue(topic: string): RawRecord[] {
    let queue = this.outputs.get(topic);
    if (!queue) {
      queue = [];
      this.outputs.set(topic, queue);
    }
    return queue;
  }

  private checkOpen(): void {
    if (this.closed) throw new IllegalState('the test driver is closed');
  }
}
