import type { Serde } from '../serdes/serde';
import type { BytesRange, BytesTable } from './bytes-table';
import { SESSION_SUFFIX_BYTES, sessionKeyUpperBound, sessionStoreKey, sessionStoreKeyParts } from './session-key-schema';
import { positionOf, resumedSegments } from './scan-position';
import type { ChangelogRecords, KeyValue, PositionedEntry, SessionScan, SessionStore, StoreIterator, Window, Windowed } from './store';
import { SegmentedStoreBase } from './segmented-store-base';
import { concatIterables } from './store-iterators';
import type { StoreStorage } from './store-storage';

const LATEST = Number.MAX_SAFE_INTEGER;

/** What a scan keeps, checked on the decoded store keys. */
interface SessionFilter {
  keyFrom?: Buffer;
  keyTo?: Buffer;
  /** Exact key length of single-key scans: a longer key that starts with the same bytes falls in their range. */
  keyLength?: number;
  earliestEnd: number;
  latestStart: number;
}

/**
 * A session store (Kafka Streams' segmented session store): store keys are `[key][end][start]` in segments by
 * session end; a session whose end is at or before `observed - retention` has expired (see Segments). Changelog
 * records carry the store keys and the aggregate bytes, stamped with the record being processed.
 */
export class TypedSessionStore<K, V> extends SegmentedStoreBase implements SessionStore<K, V> {
  constructor(
    name: string,
    storage: StoreStorage,
    readonly keySerde: Serde<K>,
    readonly valueSerde: Serde<V>,
    retentionPeriod: number,
    segmentInterval: number,
  ) {
    super(name, 'session', storage, retentionPeriod, segmentInterval);
  }

  put(session: Windowed<K>, value: V): void {
    this.write(session, this.valueSerde.serialize(value));
  }

  remove(session: Windowed<K>): void {
    this.write(session, null);
  }

  fetchSession(key: K, sessionStart: number, sessionEnd: number): V | undefined {
    const segment = this.openSegments().forRead(sessionEnd);
    this.gets++;
    if (segment === undefined) return undefined;
    const stored = segment.get(sessionStoreKey(this.keySerde.serialize(key), { start: sessionStart, end: sessionEnd }));
    return stored === undefined ? undefined : this.valueSerde.deserialize(stored);
  }

  fetch(key: K): StoreIterator<KeyValue<Windowed<K>, V>> {
    return this.findSessions(key, 0, LATEST);
  }

  findSessions(key: K, earliestSessionEndTime: number, latestSessionStartTime: number): StoreIterator<KeyValue<Windowed<K>, V>> {
    const { range, filter } = this.keySessions(key, earliestSessionEndTime, latestSessionStartTime);
    return this.sessions(range, filter);
  }

  fetchKeyRange(keyFrom: K | undefined, keyTo: K | undefined): StoreIterator<KeyValue<Windowed<K>, V>> {
    const scan = this.keyRangeSessions(keyFrom, keyTo);
    return scan === undefined ? this.iterators.track([][Symbol.iterator]()) : this.sessions(scan.range, scan.filter);
  }

  resumableScan(scan: SessionScan<K>, after: Buffer | undefined): StoreIterator<PositionedEntry<Windowed<K>, V>> {
    const read = scan.key === undefined ? this.keyRangeSessions(scan.keyFrom, scan.keyTo) : this.keySessions(scan.key, 0, LATEST);
    return read === undefined ? this.iterators.track([][Symbol.iterator]()) : this.sessions(read.range, read.filter, { after });
  }

  restore(records: ChangelogRecords): void {
    const segments = this.openSegments();
    this.storage.restoreBatch(() => {
      for (const record of records) {
        const segment = segments.forWrite(sessionStoreKeyParts(record.key).window.end);
        if (segment !== undefined) segment.restore(record.key, record.value);
      }
    });
  }

  clear(): void {
    this.openSegments().clear();
  }

  private write(session: Windowed<K>, stored: Buffer | null): void {
    const segments = this.openSegments();
    const keyBytes = this.keySerde.serialize(session.key);
    const segment = segments.forWrite(session.window.end);
    // An expired session is dropped, not written (Kafka Streams: "Skipping record for expired segment").
    if (segment === undefined) return;
    const storeKey = sessionStoreKey(keyBytes, session.window);
    segment.put(storeKey, stored);
    this.puts++;
    this.log(storeKey, stored, this.recordTimestamp());
  }

  private keySessions(key: K, earliestSessionEndTime: number, latestSessionStartTime: number): { range: BytesRange; filter: SessionFilter } {
    const keyBytes = this.keySerde.serialize(key);
    const earliestEnd = Math.max(earliestSessionEndTime, 0);
    return {
      range: {
        from: sessionStoreKey(keyBytes, { start: 0, end: earliestEnd }),
        to: sessionStoreKey(keyBytes, { start: Math.max(latestSessionStartTime, 0), end: LATEST }),
        toInclusive: true,
        reverse: false,
      },
      filter: { keyLength: keyBytes.length, earliestEnd, latestStart: latestSessionStartTime },
    };
  }

  /** Undefined for an empty range (keyFrom after keyTo). */
  private keyRangeSessions(keyFrom: K | undefined, keyTo: K | undefined): { range: BytesRange; filter: SessionFilter } | undefined {
    const from = keyFrom === undefined ? undefined : this.keySerde.serialize(keyFrom);
    const to = keyTo === undefined ? undefined : this.keySerde.serialize(keyTo);
    if (from !== undefined && to !== undefined && Buffer.compare(from, to) > 0) return undefined;
    return {
      range: { from, to: to === undefined ? undefined : sessionKeyUpperBound(to), toInclusive: true, reverse: false },
      filter: { keyFrom: from, keyTo: to, earliestEnd: 0, latestStart: LATEST },
    };
  }

  /** Sessions segment by segment; a resumable scan (`resume`) starts after its position and gives every entry its position. */
  private sessions(range: BytesRange, filter: SessionFilter): StoreIterator<KeyValue<Windowed<K>, V>>;
  private sessions(range: BytesRange, filter: SessionFilter, resume: { after: Buffer | undefined }): StoreIterator<PositionedEntry<Windowed<K>, V>>;
  private sessions(range: BytesRange, filter: SessionFilter, resume?: { after: Buffer | undefined }): StoreIterator<KeyValue<Windowed<K>, V> & { position?: Buffer }> {
    const segments = this.openSegments();
    const earliestEnd = Math.max(filter.earliestEnd, segments.firstLiveTime);
    const live = { ...filter, earliestEnd };
    const overlapping = segments.overlappingById(earliestEnd, LATEST, false);
    const parts = resume === undefined ? overlapping.map(({ table }) => ({ table, range, segment: undefined })) : resumedSegments(overlapping, range, resume.after);
    return this.iterators.track(concatIterables(parts.map((part) => () => this.decode(part.table, part.range, live, part.segment))));
  }

  /** `segment`: the id bytes of the table's segment, for a resumable scan, whose entries carry their positions. */
  private *decode(
    table: BytesTable,
    range: BytesRange,
    filter: SessionFilter,
    segment: Buffer | undefined,
  ): Generator<KeyValue<Windowed<K>, V> & { position?: Buffer }, void, undefined> {
    for (const entry of table.range(range)) {
      if (filter.keyLength !== undefined && entry.key.length !== filter.keyLength + SESSION_SUFFIX_BYTES) continue;
      const { keyBytes, window } = sessionStoreKeyParts(entry.key);
      if (!this.keeps(keyBytes, window, filter)) continue;
      const key = { key: this.keySerde.deserialize(keyBytes), window };
      const value = this.valueSerde.deserialize(entry.value);
      yield segment === undefined ? { key, value } : { key, value, position: positionOf(segment, entry.key) };
    }
  }

  private keeps(keyBytes: Buffer, window: Window, filter: SessionFilter): boolean {
    if (window.end < filter.earliestEnd || window.start > filter.latestStart) return false;
    if (filter.keyFrom !== undefined && Buffer.compare(keyBytes, filter.keyFrom) < 0) return false;
    return filter.keyTo === undefined || Buffer.compare(keyBytes, filter.keyTo) <= 0;
  }

}
