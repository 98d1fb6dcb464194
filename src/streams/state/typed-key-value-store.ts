import type { Serde } from '../serdes/serde';
import { prefixUpperBound } from './byte-order';
import type { BytesRange, BytesTable } from './bytes-table';
import type { ChangelogRecords, KeyValue, KeyValueStore, StoreIterator, StoreType } from './store';
import { StoreBase } from './store-base';
import { mapIterable } from './store-iterators';
import type { StoreStorage } from './store-storage';
import type { StoredValueFormat } from './stored-value-format';

const TABLE = 'kv';

/**
 * A key-value store of typed keys and values over one byte table: keys are the serialized key bytes, so ranges
 * and prefix scans follow their byte order (as in Kafka Streams, where `Z` < `a` for string keys and negative
 * numbers sort after positive ones for integer keys). Every write goes to the changelog when logging is enabled.
 * Plain and timestamped stores differ only by their value format.
 */
export class TypedKeyValueStore<K, V, VS = V> extends StoreBase implements KeyValueStore<K, V, VS> {
  private kv: BytesTable | undefined;

  constructor(
    name: string,
    type: StoreType,
    storage: StoreStorage,
    readonly keySerde: Serde<K>,
    readonly valueSerde: Serde<VS>,
    private readonly format: StoredValueFormat<V>,
  ) {
    super(name, type, storage);
  }

  get(key: K): V | undefined {
    const stored = this.table().get(this.keySerde.serialize(key));
    this.gets++;
    return stored === undefined ? undefined : this.format.deserialize(stored);
  }

  put(key: K, value: V | null): void {
    this.write(this.keySerde.serialize(key), value === null ? null : this.format.serialize(value));
  }

  putIfAbsent(key: K, value: V): V | undefined {
    const keyBytes = this.keySerde.serialize(key);
    const existing = this.table().get(keyBytes);
    this.gets++;
    if (existing !== undefined) return this.format.deserialize(existing);
    this.write(keyBytes, this.format.serialize(value));
    return undefined;
  }

  putAll(entries: KeyValue<K, V | null>[]): void {
    for (const entry of entries) this.put(entry.key, entry.value);
  }

  delete(key: K): V | undefined {
    const keyBytes = this.keySerde.serialize(key);
    const existing = this.table().get(keyBytes);
    this.gets++;
    this.write(keyBytes, null);
    return existing === undefined ? undefined : this.format.deserialize(existing);
  }

  range(from: K | undefined, to: K | undefined): StoreIterator<KeyValue<K, V>> {
    return this.boundedRange(from, to, false);
  }

  reverseRange(from: K | undefined, to: K | undefined): StoreIterator<KeyValue<K, V>> {
    return this.boundedRange(from, to, true);
  }

  all(): StoreIterator<KeyValue<K, V>> {
    return this.entries({ toInclusive: true, reverse: false });
  }

  reverseAll(): StoreIterator<KeyValue<K, V>> {
    return this.entries({ toInclusive: true, reverse: true });
  }

  prefixScan<P>(prefix: P, prefixSerializer: { serialize(p: P): Buffer }): StoreIterator<KeyValue<K, V>> {
    const from = prefixSerializer.serialize(prefix);
    return this.entries({ from, to: prefixUpperBound(from), toInclusive: false, reverse: false });
  }

  approximateNumEntries(): number {
    return this.table().approximateNumEntries();
  }

  restore(records: ChangelogRecords): void {
    const table = this.table();
    this.storage.restoreBatch(() => {
      for (const record of records) table.restore(record.key, this.format.restored(record.value, record.timestamp));
    });
  }

  clear(): void {
    this.table().clear();
  }

  protected opened(): void {
    this.kv = this.storage.table(TABLE);
  }

  protected entryCount(): number {
    return this.table().approximateNumEntries();
  }

  private write(keyBytes: Buffer, stored: Buffer | null): void {
    this.table().put(keyBytes, stored);
    this.puts++;
    if (this.loggingEnabled) {
      const { value, timestamp } = this.format.changelog(stored, this.recordTimestamp);
      this.log(keyBytes, value, timestamp);
    }
  }

  private boundedRange(from: K | undefined, to: K | undefined, reverse: boolean): StoreIterator<KeyValue<K, V>> {
    const fromBytes = from === undefined ? undefined : this.keySerde.serialize(from);
    const toBytes = to === undefined ? undefined : this.keySerde.serialize(to);
    // Kafka Streams answers an empty iterator (and logs a warning) for from > to.
    if (fromBytes !== undefined && toBytes !== undefined && Buffer.compare(fromBytes, toBytes) > 0) {
      return this.iterators.track([][Symbol.iterator]());
    }
    return this.entries({ from: fromBytes, to: toBytes, toInclusive: true, reverse });
  }

  private entries(range: BytesRange): StoreIterator<KeyValue<K, V>> {
    const source = this.table().range(range);
    return this.iterators.track(
      mapIterable(source, (entry) => ({ key: this.keySerde.deserialize(entry.key), value: this.format.deserialize(entry.value) })),
    );
  }

  private table(): BytesTable {
    this.checkOpen();
    return this.kv as BytesTable;
  }
}
