import { int64Bytes, readInt64BE } from '../serdes/int64';
import type { BytesTable } from './bytes-table';
import type { StoreStorage } from './store-storage';

const OBSERVED_STREAM_TIME = Buffer.from('observed-stream-time', 'utf8');
const SEGMENT_NAME = /^segment\.(-?\d+)$/;

/** Kafka Streams' default segment interval of window and session stores (`Stores`, `RocksDbSessionBytesStoreSupplier`). */
export function defaultSegmentInterval(retentionPeriod: number): number {
  return Math.max(Math.floor(retentionPeriod / 2), 60000);
}

/**
 * The time segments of a window or session store (Kafka Streams' `AbstractSegments`): segment `id` holds the
 * records whose time (window start, or session end) is in [id * interval, (id + 1) * interval), in its own table
 * named `segment.<id * interval>`. The store's observed stream time is the largest record time it was given; a
 * record whose time is at or before `observed - retention` has expired: it is neither written nor returned, and a
 * segment with only expired times is dropped as a whole. Dropping waits until no iterator of the store is open,
 * since one may still be reading the segment. The observed stream time is saved with the data, so that a reopened
 * store expires what it expired before.
 */
export class Segments {
  /** Live segments by id, with their table names (as found on disk: a previous run may have used another interval). */
  private readonly live = new Map<number, { name: string; table: BytesTable }>();
  private readonly retired: string[] = [];
  private observed = -1;
  private savedObserved = -1;

  constructor(
    private readonly storage: StoreStorage,
    readonly retentionPeriod: number,
    readonly segmentInterval: number,
    private readonly readersOpen: () => boolean,
  ) {}

  get observedStreamTime(): number {
    return this.observed;
  }

  /** The oldest record time that has not expired. */
  get firstLiveTime(): number {
    return this.observed - this.retentionPeriod + 1;
  }

  /** Opens the segments and the observed stream time a previous run left. */
  openExisting(): void {
    const saved = this.storage.metadata.get(OBSERVED_STREAM_TIME);
    this.observed = saved === undefined ? -1 : readInt64BE(saved, 0);
    this.savedObserved = this.observed;
    for (const name of this.storage.tableNames()) {
      const match = SEGMENT_NAME.exec(name);
      if (match !== null) this.live.set(this.segmentId(Number(match[1])), { name, table: this.storage.table(name) });
    }
    this.retireExpired();
  }

  isExpired(time: number): boolean {
    return time < this.firstLiveTime;
  }

  /**
   * The segment for a record of time `time`, created when missing; undefined when the record has expired.
   * Advances the observed stream time first, as Kafka Streams does for every put (deletes included).
   */
  forWrite(time: number): BytesTable | undefined {
    this.observe(time);
    if (this.isExpired(time)) return undefined;
    const id = this.segmentId(time);
    let segment = this.live.get(id);
    if (segment === undefined) {
      const name = `segment.${id * this.segmentInterval}`;
      segment = { name, table: this.storage.table(name) };
      this.live.set(id, segment);
    }
    return segment.table;
  }

  /** Advances the observed stream time to `time` if it is later, retiring the segments that expire with it. */
  observe(time: number): void {
    if (time <= this.observed) return;
    this.observed = time;
    this.retireExpired();
  }

  /** The segment holding time `time`, if it exists and has not expired. */
  forRead(time: number): BytesTable | undefined {
    return this.isExpired(time) ? undefined : this.live.get(this.segmentId(time))?.table;
  }

  /** The live segments that may hold times in [from, to], oldest first (newest first when `reverse`). */
  overlapping(from: number, to: number, reverse: boolean): BytesTable[] {
    return this.overlappingById(from, to, reverse).map((segment) => segment.table);
  }

  /** As overlapping, with the segments' ids. */
  overlappingById(from: number, to: number, reverse: boolean): { id: number; table: BytesTable }[] {
    const first = this.segmentId(from);
    const last = this.segmentId(to);
    return [...this.live]
      .filter(([id]) => id >= first && id <= last)
      .sort(([a], [b]) => (reverse ? b - a : a - b))
      .map(([id, segment]) => ({ id, table: segment.table }));
  }

  approximateNumEntries(): number {
    let count = 0;
    for (const segment of this.live.values()) count += segment.table.approximateNumEntries();
    return count;
  }

  /** Empties every segment. The observed stream time stays: what has expired stays expired. */
  clear(): void {
    for (const segment of this.live.values()) segment.table.clear();
  }

  /** Forgets the observed stream time, for a store that rebuilds it by replaying its changelog from the start. */
  resetObservedStreamTime(): void {
    this.observed = -1;
  }

  /** Writes the observed stream time when it moved, to be committed with the data. */
  saveObservedStreamTime(): void {
    if (this.observed === this.savedObserved) return;
    this.storage.metadata.put(OBSERVED_STREAM_TIME, int64Bytes(this.observed));
    this.savedObserved = this.observed;
  }

  /** Drops the expired segments once no iterator can be reading them. */
  dropRetired(): void {
    if (this.readersOpen()) return;
    for (const name of this.retired.splice(0)) this.storage.dropTable(name);
  }

  private segmentId(time: number): number {
    return Math.floor(time / this.segmentInterval);
  }

  private retireExpired(): void {
    const firstLiveSegment = this.segmentId(this.firstLiveTime);
    for (const [id, segment] of this.live) {
      if (id < firstLiveSegment) {
        this.live.delete(id);
        this.retired.push(segment.name);
      }
    }
    this.dropRetired();
  }
}
