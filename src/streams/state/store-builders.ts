import { TopologyException } from '../../errors';
import { resolveSerde } from '../serdes/default-serde';
import { forTopic, type Serde } from '../serdes/serde';
import type { StateStore, StoreType } from './store';

/** Changelog topic configuration that Kafka Streams adds for window and session stores (`windowstore.changelog.additional.retention.ms`). */
export const ADDITIONAL_CHANGELOG_RETENTION_MS = 86400000;

/** Kafka Streams' extra compaction lag of a versioned store's changelog over its history retention (`VersionedChangelogTopicConfig`). */
export const VERSIONED_CHANGELOG_ADDITIONAL_COMPACTION_LAG_MS = 86400000;

/** Serdes a builder falls back to: the application's `default.key.serde` / `default.value.serde`. */
export interface StoreSerdeDefaults {
  keySerde: Serde<unknown>;
  valueSerde: Serde<unknown>;
}

/**
 * Kafka Streams' `StoreBuilder`: describes a store for the topology (name, type, changelog) and builds one
 * instance per task.
 */
export interface StoreBuilder<S extends StateStore> {
  readonly name: string;
  readonly type: StoreType;
  readonly persistent: boolean;
  readonly loggingEnabled: boolean;
  /**
   * Configuration of the changelog topic: Kafka Streams' defaults (`cleanup.policy=compact`; window and session
   * stores `compact,delete` with `retention.ms` = retention + 1 day) under the configs given to
   * withLoggingEnabled(). Empty when logging is disabled.
   */
  readonly logConfig: Record<string, string>;
  /** Window and session stores: how long a window or session is kept. */
  readonly retentionPeriod?: number;
  /** Versioned stores: how long past versions are kept. */
  readonly historyRetention?: number;
  withLoggingEnabled(config?: Record<string, string>): this;
  withLoggingDisabled(): this;
  /** Whether the store is built behind a record cache (Kafka Streams' caching layer; off unless enabled). */
  readonly cachingEnabled: boolean;
  withCachingEnabled(): this;
  withCachingDisabled(): this;
  /**
   * A new store; serdes the builder was not given come from `defaults`. `cachingAllowed: false` builds it without
   * its caching layer whatever the builder says: what Kafka Streams does to every store of an application whose
   * `statestore.cache.max.bytes` is 0 (`InternalTopologyBuilder.rewriteTopology`). `changelogTopic`: the topic its
   * serdes are called with (Kafka Streams' `<application.id>-<store>-changelog`, logged or not).
   */
  build(defaults: StoreSerdeDefaults, options?: StoreBuildOptions): S;
  /** The key and value serdes the store is built with (what `Serde.prepare` is run on before it is used). */
  serdes?(defaults: StoreSerdeDefaults): StoreSerdeDefaults;
}

export interface StoreBuildOptions {
  cachingAllowed?: boolean;
  changelogTopic?: string;
}

/** How a builder makes its store once the serdes are known. */
export type StoreFactory<S, K, V> = (keySerde: Serde<K>, valueSerde: Serde<V>) => S;

/** Puts a store behind its caching layer. */
export type CachingWrapper<S> = (store: S) => S;

export class ConfigurableStoreBuilder<S extends StateStore, K, V> implements StoreBuilder<S> {
  private logging = true;
  private userLogConfig: Record<string, string> = {};
  private caching = false;

  constructor(
    readonly name: string,
    readonly type: StoreType,
    readonly persistent: boolean,
    readonly retentionPeriod: number | undefined,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    private readonly factory: StoreFactory<S, K, V>,
    private readonly cachingWrapper: CachingWrapper<S>,
  ) {}

  get cachingEnabled(): boolean {
    return this.caching;
  }

  withCachingEnabled(): this {
    this.caching = true;
    return this;
  }

  withCachingDisabled(): this {
    this.caching = false;
    return this;
  }

  get loggingEnabled(): boolean {
    return this.logging;
  }

  get logConfig(): Record<string, string> {
    if (!this.logging) return {};
    return { ...this.changelogDefaults(), ...this.userLogConfig };
  }

  /** Kafka Streams' defaults of the changelog topic, under the user's configs. */
  protected changelogDefaults(): Record<string, string> {
    return this.retentionPeriod === undefined
      ? { 'cleanup.policy': 'compact' }
      : { 'cleanup.policy': 'compact,delete', 'retention.ms': String(this.retentionPeriod + ADDITIONAL_CHANGELOG_RETENTION_MS) };
  }

  withLoggingEnabled(config: Record<string, string> = {}): this {
    this.logging = true;
    this.userLogConfig = { ...config };
    return this;
  }

  withLoggingDisabled(): this {
    this.logging = false;
    this.userLogConfig = {};
    return this;
  }

  build(defaults: StoreSerdeDefaults, options: StoreBuildOptions = {}): S {
    const { keySerde, valueSerde } = this.serdes(defaults);
    const topic = options.changelogTopic;
    const store = this.factory(
      (topic === undefined ? keySerde : forTopic(keySerde, topic)) as Serde<K>,
      (topic === undefined ? valueSerde : forTopic(valueSerde, topic)) as Serde<V>,
    );
    return this.caching && options.cachingAllowed !== false ? this.cachingWrapper(store) : store;
  }

  serdes(defaults: StoreSerdeDefaults): StoreSerdeDefaults {
    // Serdes derived from the defaults (windowed keys, join buffers) are resolved here too.
    return {
      keySerde: resolveSerde(this.keySerde as Serde<unknown> | undefined, defaults.keySerde),
      valueSerde: resolveSerde(this.valueSerde as Serde<unknown> | undefined, defaults.valueSerde),
    };
  }
}

/**
 * The builder of a versioned store (Kafka Streams' `VersionedKeyValueStoreBuilder`): never cached, as Kafka Streams
 * refuses caching on versioned stores; its changelog is compacted, but only once a record is older than the history
 * retention plus a day (`min.compaction.lag.ms`), so that restoration still finds every version reads may ask for.
 */
export class VersionedStoreBuilder<S extends StateStore, K, V> extends ConfigurableStoreBuilder<S, K, V> {
  constructor(
    name: string,
    persistent: boolean,
    readonly historyRetention: number,
    keySerde: Serde<K> | undefined,
    valueSerde: Serde<V> | undefined,
    factory: StoreFactory<S, K, V>,
  ) {
    super(name, 'versioned_key_value', persistent, undefined, keySerde, valueSerde, factory, (store) => store);
  }

  override withCachingEnabled(): this {
    throw new TopologyException(`versioned store ${this.name} cannot be cached (Kafka Streams does not cache versioned stores)`);
  }

  protected override changelogDefaults(): Record<string, string> {
    const lag = Math.min(this.historyRetention + VERSIONED_CHANGELOG_ADDITIONAL_COMPACTION_LAG_MS, Number.MAX_SAFE_INTEGER);
    return { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': String(lag) };
  }
}
