import type { Serde } from '../serdes/serde';
import type { BytesRange, BytesTable } from './bytes-table';
import { positionOf, resumedSegments } from './scan-position';
import type { ChangelogRecords, KeyValue, PositionedEntry, StoreIterator, StoreType, WindowScan, WindowStore, Windowed } from './store';
import { SegmentedStoreBase } from './segmented-store-base';
import { concatIterables } from './store-iterators';
import type { StoreStorage } from './store-storage';
import type { StoredValueFormat } from './stored-value-format';
import {
  MAX_SEQNUM,
  WINDOW_SUFFIX_BYTES,
  windowKeyBytes,
  windowKeyUpperBound,
  windowStartOf,
  windowStoreKey,
} from './window-key-schema';

export interface WindowStoreOptions {
  windowSize: number;
  retentionPeriod: number;
  segmentInterval: number;
  /** Keep every put of the same key and window (stream-stream joins) instead of overwriting. */
  retainDuplicates: boolean;
}

/** Bounds of a key range, checked on the decoded key bytes. */
interface KeyBounds {
  from?: Buffer;
  to?: Buffer;
}

/**
 * A window store (Kafka Streams' segmented window store): store keys are `[key][window start][seqnum]` in time
 * segments (see Segments for retention). Scans read the segments of the asked time range and filter what they
 * read by decoding the store keys: with variable-length keys a byte range also covers other keys (`a` + suffix vs
 * `a\0` + suffix) and, for key ranges, windows of any time.
 */
export class TypedWindowStore<K, V, VS = V> extends SegmentedStoreBase implements WindowStore<K, V, VS> {
  readonly windowSize: number;
  private seqnum = 0;

  constructor(
    name: string,
    type: StoreType,
    storage: StoreStorage,
    readonly keySerde: Serde<K>,
    readonly valueSerde: Serde<VS>,
    private readonly format: StoredValueFormat<V>,
    private readonly options: WindowStoreOptions,
  ) {
    super(name, type, storage, options.retentionPeriod, options.segmentInterval);
    this.windowSize = options.windowSize;
  }

  put(key: K, value: V | null, windowStart: number): void {
    const segments = this.openSegments();
    // As in Kafka Streams: with duplicates, a null cannot say which duplicate to delete, so it is ignored.
    if (value === null && this.options.retainDuplicates) return;
    const keyBytes = this.keySerde.serialize(key);
    const segment = segments.forWrite(windowStart);
    // An expired window is dropped, not written (Kafka Streams: "Skipping record for expired segment").
    if (segment === undefined) return;
    if (this.options.retainDuplicates) this.seqnum = (this.seqnum + 1) & MAX_SEQNUM;
    const storeKey = windowStoreKey(keyBytes, windowStart, this.options.retainDuplicates ? this.seqnum : 0);
    const stored = value === null ? null : this.format.serialize(value);
    segment.put(storeKey, stored);
    this.puts++;
    if (this.loggingEnabled) {
      const change = this.format.changelog(stored, this.recordTimestamp);
      this.log(storeKey, change.value, change.timestamp);
    }
  }

  fetch(key: K, windowStart: number): V | undefined {
    const segment = this.openSegments().forRead(windowStart);
    this.gets++;
    if (segment === undefined) return undefined;
    const keyBytes = this.keySerde.serialize(key);
    if (!this.options.retainDuplicates) {
      const stored = segment.get(windowStoreKey(keyBytes, windowStart, 0));
      return stored === undefined ? undefined : this.format.deserialize(stored);
    }
    const range = this.singleKeyRange(keyBytes, windowStart, windowStart, false);
    for (const entry of segment.range(range)) {
      if (entry.key.length === keyBytes.length + WINDOW_SUFFIX_BYTES) return this.format.deserialize(entry.value);
    }
    return undefined;
  }

  fetchRange(key: K, timeFrom: number, timeTo: number): StoreIterator<KeyValue<number, V>> {
    return this.singleKeyWindows(key, timeFrom, timeTo, false);
  }

  backwardFetchRange(key: K, timeFrom: number, timeTo: number): StoreIterator<KeyValue<number, V>> {
    return this.singleKeyWindows(key, timeFrom, timeTo, true);
  }

  fetchKeyRange(keyFrom: K | undefined, keyTo: K | undefined, timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.windows(this.keyBounds(keyFrom, keyTo), timeFrom, timeTo, false);
  }

  backwardFetchKeyRange(
    keyFrom: K | undefined,
    keyTo: K | undefined,
    timeFrom: number,
    timeTo: number,
  ): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.windows(this.keyBounds(keyFrom, keyTo), timeFrom, timeTo, true);
  }

  fetchAll(timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.windows({}, timeFrom, timeTo, false);
  }

  backwardFetchAll(timeFrom: number, timeTo: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.windows({}, timeFrom, timeTo, true);
  }

  all(): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.windows({}, 0, Number.MAX_SAFE_INTEGER, false);
  }

  backwardAll(): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.windows({}, 0, Number.MAX_SAFE_INTEGER, true);
  }

  resumableScan(scan: WindowScan<K>, after: Buffer | undefined): StoreIterator<PositionedEntry<Windowed<K>, V>> {
    if (scan.key === undefined) return this.windows(this.keyBounds(scan.keyFrom, scan.keyTo), scan.timeFrom, scan.timeTo, false, { after, oneKey: false });
    const keyBytes = this.keySerde.serialize(scan.key);
    return this.windows({ from: keyBytes, to: keyBytes }, scan.timeFrom, scan.timeTo, false, { after, oneKey: true });
  }

  restore(records: ChangelogRecords): void {
    const segments = this.openSegments();
    this.storage.restoreBatch(() => {
      for (const record of records) {
        const segment = segments.forWrite(windowStartOf(record.key));
        if (segment !== undefined) segment.restore(record.key, this.format.restored(record.value, record.timestamp));
      }
    });
  }

  clear(): void {
    this.openSegments().clear();
  }

  private singleKeyWindows(key: K, timeFrom: number, timeTo: number, reverse: boolean): StoreIterator<KeyValue<number, V>> {
    const segments = this.openSegments();
    const keyBytes = this.keySerde.serialize(key);
    const from = Math.max(timeFrom, segments.firstLiveTime, 0);
    const range = this.singleKeyRange(keyBytes, from, timeTo, reverse);
    const storeKeyLength = keyBytes.length + WINDOW_SUFFIX_BYTES;
    const tables = from > timeTo ? [] : segments.overlapping(from, timeTo, reverse);
    return this.iterators.track(
      concatIterables(tables.map((table) => () => this.decodeSingleKey(table, range, storeKeyLength))),
    );
  }

  private *decodeSingleKey(table: BytesTable, range: BytesRange, storeKeyLength: number): Generator<KeyValue<number, V>, void, undefined> {
    for (const entry of table.range(range)) {
      // Same key bytes only: a longer key that starts with them can fall within the byte range.
      if (entry.key.length === storeKeyLength) yield { key: windowStartOf(entry.key), value: this.format.deserialize(entry.value) };
    }
  }

  /**
   * Windows of keys within `bounds` starting within [timeFrom, timeTo], segment by segment. A resumable scan
   * (`resume`) is forward, starts after its position, and gives every entry its position; one of a single key reads
   * only that key's byte range in each segment.
   */
  private windows(bounds: KeyBounds, timeFrom: number, timeTo: number, reverse: boolean): StoreIterator<KeyValue<Windowed<K>, V>>;
  private windows(bounds: KeyBounds, timeFrom: number, timeTo: number, reverse: false, resume: { after: Buffer | undefined; oneKey: boolean }): StoreIterator<PositionedEntry<Windowed<K>, V>>;
  private windows(
    bounds: KeyBounds,
    timeFrom: number,
    timeTo: number,
    reverse: boolean,
    resume?: { after: Buffer | undefined; oneKey: boolean },
  ): StoreIterator<KeyValue<Windowed<K>, V> & { position?: Buffer }> {
    const segments = this.openSegments();
    const from = Math.max(timeFrom, segments.firstLiveTime, 0);
    const empty = from > timeTo || (bounds.from !== undefined && bounds.to !== undefined && Buffer.compare(bounds.from, bounds.to) > 0);
    const range: BytesRange = resume?.oneKey
      ? this.singleKeyRange(bounds.from!, from, timeTo, false)
      : { from: bounds.from, to: bounds.to === undefined ? undefined : windowKeyUpperBound(bounds.to), toInclusive: true, reverse };
    const overlapping = empty ? [] : segments.overlappingById(from, timeTo, reverse);
    const parts = resume === undefined ? overlapping.map(({ table }) => ({ table, range, segment: undefined })) : resumedSegments(overlapping, range, resume.after);
    return this.iterators.track(concatIterables(parts.map((part) => () => this.decodeWindows(part.table, part.range, bounds, from, timeTo, part.segment))));
  }

  /** `segment`: the id bytes of the table's segment, for a resumable scan, whose entries carry their positions. */
  private *decodeWindows(
    table: BytesTable,
    range: BytesRange,
    bounds: KeyBounds,
    timeFrom: number,
    timeTo: number,
    segment: Buffer | undefined,
  ): Generator<KeyValue<Windowed<K>, V> & { position?: Buffer }, void, undefined> {
    for (const entry of table.range(range)) {
      const keyBytes = windowKeyBytes(entry.key);
      if (bounds.from !== undefined && Buffer.compare(keyBytes, bounds.from) < 0) continue;
      if (bounds.to !== undefined && Buffer.compare(keyBytes, bounds.to) > 0) continue;
      const start = windowStartOf(entry.key);
      if (start < timeFrom || start > timeTo) continue;
      const key = { key: this.keySerde.deserialize(keyBytes), window: { start, end: start + this.windowSize } };
      const value = this.format.deserialize(entry.value);
      yield segment === undefined ? { key, value } : { key, value, position: positionOf(segment, entry.key) };
    }
  }

  private singleKeyRange(keyBytes: Buffer, timeFrom: number, timeTo: number, reverse: boolean): BytesRange {
    return {
      from: windowStoreKey(keyBytes, timeFrom, 0),
      to: windowStoreKey(keyBytes, timeTo, 0xffffffff),
      toInclusive: true,
      reverse,
    };
  }

  private keyBounds(keyFrom: K | undefined, keyTo: K | undefined): KeyBounds {
    return {
      from: keyFrom === undefined ? undefined : this.keySerde.serialize(keyFrom),
      to: keyTo === undefined ? undefined : this.keySerde.serialize(keyTo),
    };
  }

}
