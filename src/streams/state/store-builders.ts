import { resolveSerde } from '../serdes/default-serde';
import type { Serde } from '../serdes/serde';
import type { StateStore, StoreType } from './store';

/** Changelog topic configuration that Kafka Streams adds for window and session stores (`windowstore.changelog.additional.retention.ms`). */
export const ADDITIONAL_CHANGELOG_RETENTION_MS = 86400000;

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
  withLoggingEnabled(config?: Record<string, string>): this;
  withLoggingDisabled(): this;
  /** Whether the store is built behind a record cache (Kafka Streams' caching layer; off unless enabled). */
  readonly cachingEnabled: boolean;
  withCachingEnabled(): this;
  withCachingDisabled(): this;
  /**
   * A new store; serdes the builder was not given come from `defaults`. `cachingAllowed: false` builds it without
   * its caching layer whatever the builder says: what Kafka Streams does to every store of an application whose
   * `statestore.cache.max.bytes` is 0 (`InternalTopologyBuilder.rewriteTopology`).
   */
  build(defaults: StoreSerdeDefaults, options?: { cachingAllowed?: boolean }): S;
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
    const defaults: Record<string, string> =
      this.retentionPeriod === undefined
        ? { 'cleanup.policy': 'compact' }
        : { 'cleanup.policy': 'compact,delete', 'retention.ms': String(this.retentionPeriod + ADDITIONAL_CHANGELOG_RETENTION_MS) };
    return { ...defaults, ...this.userLogConfig };
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

  build(defaults: StoreSerdeDefaults, options: { cachingAllowed?: boolean } = {}): S {
    // Serdes derived from the defaults (windowed keys, join buffers) are resolved here too.
    const store = this.factory(
      resolveSerde(this.keySerde as Serde<unknown> | undefined, defaults.keySerde) as Serde<K>,
      resolveSerde(this.valueSerde as Serde<unknown> | undefined, defaults.valueSerde) as Serde<V>,
    );
    return this.caching && options.cachingAllowed !== false ? this.cachingWrapper(store) : store;
  }
}
