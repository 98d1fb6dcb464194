import { TopologyException } from '../../errors';
import { InMemoryStorage } from './in-memory-storage';
import { LmdbStorage } from './lmdb-storage';
import { defaultSegmentInterval } from './segments';
import type { StoreStorage } from './store-storage';

/**
 * What `Stores.persistent...Store(name)` / `Stores.inMemory...Store(name)` return (Kafka Streams' bytes store
 * suppliers): the name, where the data lives and, for window and session stores, their time parameters. Builders
 * turn a supplier into typed stores. As in Kafka Streams, the plain and timestamped suppliers are interchangeable:
 * the builder decides the value format.
 */
export interface KeyValueBytesStoreSupplier {
  readonly name: string;
  readonly persistent: boolean;
  /** A fresh storage for one store instance (one per task). */
  createStorage(): StoreStorage;
}

export interface WindowBytesStoreSupplier extends KeyValueBytesStoreSupplier {
  readonly retentionPeriod: number;
  readonly windowSize: number;
  readonly segmentInterval: number;
  readonly retainDuplicates: boolean;
}

/** A versioned key-value store's supplier (Kafka Streams' `VersionedBytesStoreSupplier`). */
export interface VersionedBytesStoreSupplier extends KeyValueBytesStoreSupplier {
  readonly versioned: true;
  readonly historyRetentionMs: number;
  readonly segmentIntervalMs: number;
}

export function isVersionedSupplier(supplier: KeyValueBytesStoreSupplier): supplier is VersionedBytesStoreSupplier {
  return (supplier as Partial<VersionedBytesStoreSupplier>).versioned === true;
}

export interface SessionBytesStoreSupplier extends KeyValueBytesStoreSupplier {
  readonly retentionPeriod: number;
  readonly segmentInterval: number;
}

function storageFactory(persistent: boolean): () => StoreStorage {
  return persistent ? () => new LmdbStorage() : () => new InMemoryStorage();
}

function checkName(name: string): void {
  if (typeof name !== 'string' || name.length === 0) throw new TopologyException('a store needs a non-empty name');
}

function checkDuration(storeName: string, what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TopologyException(`${what} of store ${storeName} must be a non-negative integer of ms, got ${value}`);
  }
}

export function keyValueSupplier(name: string, persistent: boolean): KeyValueBytesStoreSupplier {
  checkName(name);
  return { name, persistent, createStorage: storageFactory(persistent) };
}

export function windowSupplier(
  name: string,
  persistent: boolean,
  retentionPeriod: number,
  windowSize: number,
  retainDuplicates: boolean,
): WindowBytesStoreSupplier {
  checkName(name);
  checkDuration(name, 'the retention period', retentionPeriod);
  checkDuration(name, 'the window size', windowSize);
  if (windowSize > retentionPeriod) {
    throw new TopologyException(
      `the retention period of window store ${name} (${retentionPeriod} ms) must be no smaller than its window size (${windowSize} ms)`,
    );
  }
  return {
    name,
    persistent,
    retentionPeriod,
    windowSize,
    retainDuplicates,
    segmentInterval: defaultSegmentInterval(retentionPeriod),
    createStorage: storageFactory(persistent),
  };
}

export function sessionSupplier(name: string, persistent: boolean, retentionPeriod: number): SessionBytesStoreSupplier {
  checkName(name);
  checkDuration(name, 'the retention period', retentionPeriod);
  return {
    name,
    persistent,
    retentionPeriod,
    segmentInterval: defaultSegmentInterval(retentionPeriod),
    createStorage: storageFactory(persistent),
  };
}

/** Kafka Streams' default segment interval of a versioned store (`RocksDbVersionedKeyValueBytesStoreSupplier`). */
export function defaultVersionedSegmentInterval(historyRetentionMs: number): number {
  if (historyRetentionMs <= 60_000) return Math.max(Math.floor(historyRetentionMs / 3), 2_000);
  if (historyRetentionMs <= 300_000) return Math.max(Math.floor(historyRetentionMs / 5), 20_000);
  if (historyRetentionMs <= 3_600_000) return Math.max(Math.floor(historyRetentionMs / 12), 60_000);
  return Math.max(Math.floor(historyRetentionMs / 24), 300_000);
}

export function versionedSupplier(
  name: string,
  persistent: boolean,
  historyRetentionMs: number,
  segmentIntervalMs: number = defaultVersionedSegmentInterval(historyRetentionMs),
): VersionedBytesStoreSupplier {
  checkName(name);
  checkDuration(name, 'the history retention', historyRetentionMs);
  if (!Number.isSafeInteger(segmentIntervalMs) || segmentIntervalMs < 1) {
    throw new TopologyException(`the segment interval of store ${name} must be a positive integer of ms, got ${segmentIntervalMs}`);
  }
  return { name, persistent, versioned: true, historyRetentionMs, segmentIntervalMs, createStorage: storageFactory(persistent) };
}
