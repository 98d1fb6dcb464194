import { IllegalState, TopologyException } from '../../errors';
import type { Headers } from '../processor/record';
import type { Serde } from '../serdes/serde';
import { cacheMaxBytes, minFreeDiskBytes } from '../config/config-lookup';
import { type ChangelogRecord, type ChangelogRecords, isCachingStore, type StateStore, type StoreContext } from '../state/store';
import type { ThreadCache } from '../state/thread-cache';
import type { Topology } from '../topology/topology';
import { changelogTopicName } from '../topology/internal-topics';
import type { RecordCollector } from './record-collector';
import type { TaskId } from './task-id';

/** The headers of every changelog record: none, one frozen object rather than one per write. */
const NO_HEADERS: Headers = Object.freeze({});

/** What a task's stores need from the runtime (or the test driver) that hosts the task, active or standby. */
export interface StateEnvironment {
  readonly applicationId: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly defaultKeySerde: Serde<unknown>;
  readonly defaultValueSerde: Serde<unknown>;
  /** The record cache of the thread the task runs on, which its caching stores share with the thread's other tasks'. */
  readonly cache: ThreadCache;
  /** `<state.dir>/<application.id>/<taskId>`. */
  readonly taskDir: string;
  /** The changelog topic of a store, or undefined when the store is not logged. */
  changelogTopic(store: string): string | undefined;
  readonly configureStore?: StoreContext['configureStore'];
  /** Wraps each initialized store as processors and queries see it (metrics). */
  readonly meterStore?: (store: StateStore) => StateStore;
  /** Told of each store flush (its milliseconds) and each changelog batch restored into a store: the store's metrics. */
  readonly storeFlushed?: (store: string, ms: number) => void;
  readonly storeRestored?: (store: string, records: number) => void;
  /** Told of each read of a caching store's cache (its hit ratio), at `metrics.recording.level` DEBUG or TRACE. */
  readonly cacheRead?: StoreContext['cacheRead'];
}

/** What the stores of a task that processes records see of it: where their changes go, stream time, the record being processed. */
export interface ProcessingState {
  readonly collector: Pick<RecordCollector, 'send'>;
  readonly streamTime: () => number;
  readonly recordTimestamp: () => number | undefined;
  readonly recordHeaders: () => Headers | undefined;
}

/** A standby's stores: nothing is processed through them, so nothing may be logged. */
const NOT_PROCESSING: ProcessingState = {
  collector: {
    send: () => {
      throw new IllegalState('a standby task does not process records and writes nothing');
    },
  },
  streamTime: () => -1,
  recordTimestamp: () => undefined,
  recordHeaders: () => undefined,
};

/**
 * Kafka Streams' ProcessorStateManager: the stores of one task, active or standby. It builds and opens them,
 * writes restored changelog records into them, flushes and closes them; what is done with the task's directory
 * and checkpoint around that is in `task-stores.ts`.
 */
export class ProcessorStateManager {
  readonly stores = new Map<string, StateStore>();

  constructor(
    readonly id: TaskId,
    readonly name: string,
    private readonly storeNames: readonly string[],
    private readonly topology: Topology,
    private readonly env: StateEnvironment,
    /** An active task's; a standby's stores see none. */
    private readonly processing: ProcessingState = NOT_PROCESSING,
  ) {}

  /** Builds and opens the stores; the runtime restores them before the task processes. */
  initializeStores(): void {
    const { streamTime, recordTimestamp, recordHeaders } = this.processing;
    for (const storeName of this.storeNames) {
      const builder = this.topology.store(storeName);
      if (!builder) throw new TopologyException(`store '${storeName}' is not in the topology`);
      const changelog = this.env.changelogTopic(storeName);
      const store = builder.build(this.defaultSerdes(), { cachingAllowed: cacheMaxBytes(this.env.config) > 0, changelogTopic: this.storeSerdeTopic(storeName) });
      const storeContext: StoreContext = {
        applicationId: this.env.applicationId,
        taskId: this.name,
        taskDir: this.env.taskDir,
        loggingEnabled: changelog !== undefined,
        logChange: changelog === undefined ? () => undefined : this.changelogWriter(changelog),
        streamTime,
        recordTimestamp,
        recordHeaders,
        cache: this.env.cache,
        minFreeDiskBytes: minFreeDiskBytes(this.env.config),
        ...(this.env.configureStore ? { configureStore: this.env.configureStore } : {}),
        ...(this.env.cacheRead ? { cacheRead: this.env.cacheRead } : {}),
      };
      store.init(storeContext);
      this.stores.set(storeName, this.env.meterStore ? this.env.meterStore(store) : store);
    }
  }

  defaultSerdes(): { keySerde: Serde<unknown>; valueSerde: Serde<unknown> } {
    return { keySerde: this.env.defaultKeySerde, valueSerde: this.env.defaultValueSerde };
  }

  /** The topic a store's serdes are called with: its changelog's name, logged or not, as in Kafka Streams. */
  storeSerdeTopic(store: string): string {
    return this.env.changelogTopic(store) ?? changelogTopicName(this.env.applicationId, store);
  }

  /** Closes the stores opened so far and forgets them, so that `initializeStores` can open them afresh. */
  async closeStores(): Promise<void> {
    const stores = [...this.stores.values()];
    this.stores.clear();
    for (const store of stores) if (store.isOpen()) await store.close();
  }

  /**
   * Flushes the stores' record caches, upstream stores first (their updates go downstream now, and may fill the
   * caches below); call before flushing the producer.
   */
  flushCaches(): void {
    for (const store of this.stores.values()) if (isCachingStore(store)) store.flushCache();
  }

  async flushStores(): Promise<void> {
    for (const [name, store] of this.stores) {
      const start = performance.now();
      await store.flush();
      this.env.storeFlushed?.(name, performance.now() - start);
    }
  }

  /** Writes a batch of a store's changelog records into it. */
  restore(storeName: string, records: ChangelogRecords): void {
    const store = this.stores.get(storeName);
    if (!store) throw new IllegalState(`store '${storeName}' is not initialized in task ${this.name}`);
    store.restore(records);
    this.env.storeRestored?.(storeName, records.length);
  }

  /** Closes every open store, each even when one before it failed; throws the first failure. */
  async close(): Promise<void> {
    let firstError: unknown;
    for (const store of this.stores.values()) {
      try {
        if (store.isOpen()) await store.close();
      } catch (error) {
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
  }

  private changelogWriter(topic: string): (storeName: string, record: ChangelogRecord) => void {
    const partition = this.id.partition;
    const collector = this.processing.collector;
    return (_storeName, record) =>
      collector.send({ topic, partition, key: record.key, value: record.value, timestamp: record.timestamp, headers: NO_HEADERS });
  }
}
