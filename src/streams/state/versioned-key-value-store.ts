import { readInt64BE, writeInt64BE } from '../serdes/int64';
import type { Serde } from '../serdes/serde';
import type { BytesTable } from './bytes-table';
import type { ChangelogRecords, VersionedKeyValueStore, VersionedRecord } from './store';
import { SegmentedStoreBase } from './segmented-store-base';
import type { StoreStorage } from './store-storage';

/** Kafka Streams' `VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED`: the put is the key's latest version. */
export const PUT_RETURN_CODE_VALID_TO_UNDEFINED = -1;
/** Kafka Streams' `PUT_RETURN_CODE_NOT_PUT` (Long.MIN_VALUE there): the put was older than the history retention. */
export const PUT_RETURN_CODE_NOT_PUT = Number.MIN_SAFE_INTEGER;

const LATEST = 'latest';
const TIMESTAMP_BYTES = 8;
const ENTRY_HEADER_BYTES = 20;
const TOMBSTONE_LENGTH = 0xffffffff;

/** One past version of a key: its value (null: deleted) from validFrom (inclusive) to validTo (exclusive). */
interface Version {
  validFrom: number;
  validTo: number;
  value: Buffer | null;
}

/** `[validFrom][validTo][length or 0xffffffff for a tombstone][value]` per version, oldest first. */
function encodeVersions(versions: readonly Version[]): Buffer {
  let size = 0;
  for (const version of versions) size += ENTRY_HEADER_BYTES + (version.value?.length ?? 0);
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const version of versions) {
    writeInt64BE(bytes, version.validFrom, offset);
    writeInt64BE(bytes, version.validTo, offset + 8);
    bytes.writeUInt32BE(version.value === null ? TOMBSTONE_LENGTH : version.value.length, offset + 16);
    offset += ENTRY_HEADER_BYTES;
    if (version.value !== null) offset += version.value.copy(bytes, offset);
  }
  return bytes;
}

function decodeVersions(bytes: Buffer): Version[] {
  const versions: Version[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const validFrom = readInt64BE(bytes, offset);
    const validTo = readInt64BE(bytes, offset + 8);
    const length = bytes.readUInt32BE(offset + 16);
    offset += ENTRY_HEADER_BYTES;
    if (length === TOMBSTONE_LENGTH) {
      versions.push({ validFrom, validTo, value: null });
    } else {
      versions.push({ validFrom, validTo, value: Buffer.from(bytes.subarray(offset, offset + length)) });
      offset += length;
    }
  }
  return versions;
}

/** Versions sorted by validFrom, then validTo: a deletion that ends a key's history (validFrom = validTo) comes first. */
function byTime(a: Version, b: Version): number {
  return a.validFrom - b.validFrom || a.validTo - b.validTo;
}

/** Where a put lands among the existing versions of its key. */
type Placement =
  | { kind: 'latest' }
  | { kind: 'replace'; table: BytesTable; versions: Version[]; index: number }
  | { kind: 'split'; table: BytesTable; versions: Version[]; index: number }
  | { kind: 'before'; validTo: number };

/**
 * A versioned key-value store (Kafka Streams' `RocksDBVersionedStore`, KIP-889): every key keeps its versions, each
 * valid from its record's timestamp until the next version's. The latest version of each key is in one table
 * (`[8-byte BE timestamp][value]`), so reading it is one point read; older versions are kept in time segments by
 * their validTo, all versions of a key in one segment in one entry, so that an as-of read reads at most one entry per
 * segment, newest first, and stops at the first segment that decides it. The store's observed stream time is the
 * largest timestamp put; versions that ended `historyRetention` or more before it expire with their segment, and a put
 * older than that is not written (Kafka Streams' grace period, which equals the history retention). The latest
 * version of a key never expires. Every put and delete is logged as it came (key, value or tombstone, timestamp), and
 * restoration replays the log through the same put.
 */
export class TypedVersionedKeyValueStore<K, V> extends SegmentedStoreBase implements VersionedKeyValueStore<K, V> {
  private latestTable: BytesTable | undefined;

  constructor(
    name: string,
    storage: StoreStorage,
    readonly keySerde: Serde<K>,
    readonly valueSerde: Serde<V>,
    readonly historyRetention: number,
    segmentInterval: number,
  ) {
    super(name, 'versioned_key_value', storage, historyRetention, segmentInterval);
  }

  put(key: K, value: V | null, timestamp: number): number {
    const keyBytes = this.keySerde.serialize(key);
    const valueBytes = value === null ? null : this.valueSerde.serialize(value);
    const result = this.write(keyBytes, valueBytes, timestamp);
    this.log(keyBytes, valueBytes, timestamp);
    return result;
  }

  delete(key: K, timestamp: number): VersionedRecord<V> | undefined {
    const keyBytes = this.keySerde.serialize(key);
    const existing = this.isTooOld(timestamp) ? undefined : this.find(keyBytes, timestamp);
    this.write(keyBytes, null, timestamp);
    this.log(keyBytes, null, timestamp);
    return existing;
  }

  get(key: K, asOfTimestamp?: number): VersionedRecord<V> | undefined {
    const keyBytes = this.keySerde.serialize(key);
    if (asOfTimestamp === undefined) {
      this.gets++;
      const latest = this.latest().get(keyBytes);
      return latest === undefined ? undefined : this.latestRecord(latest);
    }
    return this.find(keyBytes, asOfTimestamp);
  }

  restore(records: ChangelogRecords): void {
    for (const record of records) {
      // Copies: the records' buffers may be views into a fetch that is released after the batch.
      this.write(Buffer.from(record.key), record.value === null ? null : Buffer.from(record.value), record.timestamp);
    }
  }

  clear(): void {
    this.latest().clear();
    const segments = this.openSegments();
    segments.clear();
    // The restoration that follows replays every put from the start: with the stream time it ends at, it would drop
    // the latest versions of keys not updated within the history retention, which never expire.
    segments.resetObservedStreamTime();
  }

  approximateNumEntries(): number {
    return this.latest().approximateNumEntries();
  }

  protected override opened(): void {
    super.opened();
    this.latestTable = this.storage.table(LATEST);
  }

  protected override entryCount(): number {
    return this.latest().approximateNumEntries() + super.entryCount();
  }

  private latest(): BytesTable {
    this.checkOpen();
    return this.latestTable as BytesTable;
  }

  private isTooOld(timestamp: number): boolean {
    return timestamp < this.openSegments().observedStreamTime - this.historyRetention;
  }

  private latestRecord(stored: Buffer): VersionedRecord<V> {
    const value = this.valueSerde.deserializeFrom
      ? this.valueSerde.deserializeFrom(stored, TIMESTAMP_BYTES)
      : this.valueSerde.deserialize(stored.subarray(TIMESTAMP_BYTES));
    return { value, timestamp: readInt64BE(stored, 0) };
  }

  /** The version valid at `asOf`: the latest when it started at or before, else the one a segment holds. */
  private find(keyBytes: Buffer, asOf: number): VersionedRecord<V> | undefined {
    this.gets++;
    const segments = this.openSegments();
    const latest = this.latest().get(keyBytes);
    if (latest !== undefined && readInt64BE(latest, 0) <= asOf) return this.latestRecord(latest);
    // Past the history retention only the latest version answers, even if a segment still holds older ones (as in Kafka Streams).
    if (asOf < segments.observedStreamTime - this.historyRetention) return undefined;
    for (const table of segments.overlapping(asOf, Number.MAX_SAFE_INTEGER, true)) {
      const stored = table.get(keyBytes);
      if (stored === undefined) continue;
      const versions = decodeVersions(stored);
      for (let i = versions.length - 1; i >= 0; i--) {
        const version = versions[i]!;
        // Versions in older segments ended earlier still: nothing was valid at asOf.
        if (version.validTo <= asOf) return undefined;
        if (version.validFrom <= asOf) {
          return version.value === null
            ? undefined
            : { value: this.valueSerde.deserialize(version.value), timestamp: version.validFrom, validTo: version.validTo };
        }
      }
    }
    return undefined;
  }

  /** A put or delete without logging (restoration replays the log through it); returns what Kafka Streams' put returns. */
  private write(keyBytes: Buffer, value: Buffer | null, timestamp: number): number {
    const segments = this.openSegments();
    if (this.isTooOld(timestamp)) return PUT_RETURN_CODE_NOT_PUT;
    segments.observe(timestamp);
    this.puts++;
    const latestTable = this.latest();
    const latest = latestTable.get(keyBytes);
    if (latest !== undefined) {
      const latestTimestamp = readInt64BE(latest, 0);
      if (timestamp >= latestTimestamp) {
        if (timestamp > latestTimestamp) {
          this.addVersion(keyBytes, { validFrom: latestTimestamp, validTo: timestamp, value: Buffer.from(latest.subarray(TIMESTAMP_BYTES)) });
        }
        latestTable.put(keyBytes, value === null ? null : withTimestamp(timestamp, value));
        return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
      }
    }
    const placement = this.place(keyBytes, timestamp, latest === undefined ? undefined : readInt64BE(latest, 0));
    switch (placement.kind) {
      case 'latest':
        if (value !== null) latestTable.put(keyBytes, withTimestamp(timestamp, value));
        // A deletion with nothing after it is kept as an empty version, so that a later out-of-order put ends there.
        else this.addVersion(keyBytes, { validFrom: timestamp, validTo: timestamp, value: null });
        return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
      case 'replace': {
        const version = placement.versions[placement.index]!;
        version.value = value;
        placement.table.put(keyBytes, encodeVersions(placement.versions));
        return version.validTo;
      }
      case 'split': {
        const version = placement.versions[placement.index]!;
        const earlier: Version = { validFrom: version.validFrom, validTo: timestamp, value: version.value };
        placement.versions[placement.index] = { validFrom: timestamp, validTo: version.validTo, value };
        placement.table.put(keyBytes, encodeVersions(placement.versions));
        // The part before the put now ends at its timestamp, which may belong to an older segment.
        this.addVersion(keyBytes, earlier);
        return version.validTo;
      }
      case 'before':
        this.addVersion(keyBytes, { validFrom: timestamp, validTo: placement.validTo, value });
        return placement.validTo;
    }
  }

  /**
   * Where a put at `timestamp`, older than the latest version (or with none), belongs: over a version that starts at
   * the same time, inside one it splits, or in a gap before the next version (which then gives its validTo); with
   * no version after it, it is the latest. Reads the segments that may hold versions ending after `timestamp`, newest
   * first, until one decides.
   */
  private place(keyBytes: Buffer, timestamp: number, latestTimestamp: number | undefined): Placement {
    let next = latestTimestamp;
    for (const table of this.openSegments().overlapping(timestamp, Number.MAX_SAFE_INTEGER, true)) {
      const stored = table.get(keyBytes);
      if (stored === undefined) continue;
      const versions = decodeVersions(stored);
      for (let index = versions.length - 1; index >= 0; index--) {
        const version = versions[index]!;
        if (version.validTo <= timestamp) return next === undefined ? { kind: 'latest' } : { kind: 'before', validTo: next };
        if (version.validFrom === timestamp) return { kind: 'replace', table, versions, index };
        if (version.validFrom < timestamp) return { kind: 'split', table, versions, index };
        next = version.validFrom;
      }
    }
    return next === undefined ? { kind: 'latest' } : { kind: 'before', validTo: next };
  }

  /** Adds a past version to the segment of its validTo; a version that ended past the history retention is dropped. */
  private addVersion(keyBytes: Buffer, version: Version): void {
    const table = this.openSegments().forWrite(version.validTo);
    if (table === undefined) return;
    const stored = table.get(keyBytes);
    const versions = stored === undefined ? [] : decodeVersions(stored);
    versions.push(version);
    versions.sort(byTime);
    table.put(keyBytes, encodeVersions(versions));
  }
}

function withTimestamp(timestamp: number, value: Buffer): Buffer {
  const stored = Buffer.allocUnsafe(TIMESTAMP_BYTES + value.length);
  writeInt64BE(stored, timestamp, 0);
  value.copy(stored, TIMESTAMP_BYTES);
  return stored;
}
