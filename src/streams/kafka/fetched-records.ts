/**
 * A fetched partition's records held as columns: offsets, timestamps and where each key and value lie in the fetched
 * bytes, in typed arrays, until a task takes a record or a changelog's reader writes it to its store. A fetch's records wait in their task's queue until processed,
 * across young-generation collections; as objects (one per record), every collection copied them and most ended up
 * promoted, to be freed by a full collection (a quarter of a word count's bytes promoted). As columns they are a few
 * objects per fetch, whatever its size; the one object a task processes is made when it takes the record, and dies
 * young.
 */
import type { RecordHeaders } from './record-batch';
import type { ConsumedRecord, FetchedRecordList, RecordBytes } from './types';

/** What a record's batch tells of it: what kafkajs' Batch and the read_committed filter look at. */
export interface BatchContext {
  firstOffset: string;
  firstTimestamp: string;
  partitionLeaderEpoch: number;
  inTransaction: boolean;
  isControlBatch: boolean;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  maxTimestamp: string;
  timestampType: number;
  magicByte: number;
}

/** A consumed record with what its batch tells of it. */
export interface BatchedRecord extends ConsumedRecord {
  readonly isControlRecord: boolean;
  readonly batchContext: BatchContext;
}

/**
 * A record taken from the columns, whose key and value stay in the fetched bytes until asked for: each read of `key`
 * or `value` makes a new view; `headers` is made on first read when the record has none.
 */
class DecodedRecord implements BatchedRecord, RecordBytes {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly data: Buffer,
    /** -1: a null key. */
    readonly keyStart: number,
    readonly keyEnd: number,
    readonly valueStart: number,
    readonly valueEnd: number,
    readonly offset: number,
    readonly timestamp: number,
    private headerMap: RecordHeaders | undefined,
    readonly batchContext: BatchContext,
  ) {}

  get isControlRecord(): boolean {
    return this.batchContext.isControlBatch;
  }

  get key(): Buffer | null {
    return this.keyStart < 0 ? null : this.data.subarray(this.keyStart, this.keyEnd);
  }

  get value(): Buffer | null {
    return this.valueStart < 0 ? null : this.data.subarray(this.valueStart, this.valueEnd);
  }

  get headers(): RecordHeaders {
    return (this.headerMap ??= {});
  }

  get bytes(): RecordBytes {
    return this;
  }

  /** Its fields, the views included, for JSON.stringify (a logged record) and the like. */
  toJSON(): Omit<BatchedRecord, 'batchContext'> {
    return { topic: this.topic, partition: this.partition, offset: this.offset, timestamp: this.timestamp, key: this.key, value: this.value, headers: this.headers, isControlRecord: this.isControlRecord };
  }
}

/**
 * The key of every changelog record that has none: changelog records always have one, but a global store's topic may
 * hold records without a key, which its reader tells apart from an empty key by this very buffer.
 */
export const NULL_KEY = Buffer.alloc(0);

/** A changelog record: views into the fetched bytes, valid as long as the caller keeps them. */
export interface ChangelogRecord {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
  offset: number;
}

/** The records a fetch brought for one partition of a changelog (or a global store's topic), in offset order. */
export interface ChangelogRecordList extends Iterable<ChangelogRecord> {
  readonly length: number;
  offsetAt(index: number): number;
  /** Keeps the first `length` records only. */
  truncate(length: number): void;
}

/** Consecutive records read from one buffer (the fetched bytes, or a batch decompressed) with one batch context. */
interface Segment<C> {
  readonly data: Buffer;
  readonly context: C;
}

const INITIAL_CAPACITY = 256;

/**
 * The records of one fetched partition, appended as the decoder reads them: for a stream thread's consumer every
 * record with its batch's context `C` (control records and those before the fetch offset included), for a
 * changelog's reader (`C` undefined) the records it keeps. Offsets are kept as deltas from the first one: a fetch
 * spans far fewer than 2^31 offsets.
 */
export class RecordColumns<C extends BatchContext | undefined = BatchContext> implements ChangelogRecordList {
  length = 0;
  private firstOffset = 0;
  private offsetDeltas: Int32Array;
  private timestamps: Float64Array;
  /** Per record: key start, key end, value start, value end. */
  private bounds: Int32Array;
  private segmentOf: Int32Array;
  private readonly segments: Segment<C>[] = [];
  /** Set for the records that carry headers, and only once one does. */
  private headers: (RecordHeaders | undefined)[] | undefined;

  /** `expected`: about how many records will come (the columns double when more do). */
  constructor(expected = INITIAL_CAPACITY) {
    const capacity = Math.max(0, expected);
    this.offsetDeltas = new Int32Array(capacity);
    this.timestamps = new Float64Array(capacity);
    this.bounds = new Int32Array(4 * capacity);
    this.segmentOf = new Int32Array(capacity);
  }

  /** Appends a record; `data` and `context` begin a new segment when they differ from the last record's. */
  push(data: Buffer, context: C, keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, offset: number, timestamp: number, headers: RecordHeaders | undefined): void {
    const i = this.length;
    if (i === this.offsetDeltas.length) this.grow();
    let segment = this.segments.length - 1;
    const last = this.segments[segment];
    if (last === undefined || last.data !== data || last.context !== context) {
      this.segments.push({ data, context });
      segment++;
    }
    if (i === 0) this.firstOffset = offset;
    this.offsetDeltas[i] = offset - this.firstOffset;
    this.timestamps[i] = timestamp;
    const b = 4 * i;
    this.bounds[b] = keyStart;
    this.bounds[b + 1] = keyEnd;
    this.bounds[b + 2] = valueStart;
    this.bounds[b + 3] = valueEnd;
    this.segmentOf[i] = segment;
    if (headers !== undefined) {
      // Dense from the first: an array written at scattered indexes turns into a dictionary, slow for every read.
      this.headers ??= new Array<RecordHeaders | undefined>(this.offsetDeltas.length).fill(undefined);
      this.headers[i] = headers;
    }
    this.length = i + 1;
  }

  offsetAt(i: number): number {
    return this.firstOffset + this.offsetDeltas[i]!;
  }

  timestampAt(i: number): number {
    return this.timestamps[i]!;
  }

  contextAt(i: number): C {
    return this.segments[this.segmentOf[i]!]!.context;
  }

  /** The record's key, a view of the fetched bytes (null for a null key). */
  keyAt(i: number): Buffer | null {
    const start = this.bounds[4 * i]!;
    return start < 0 ? null : this.segments[this.segmentOf[i]!]!.data.subarray(start, this.bounds[4 * i + 1]!);
  }

  recordAt(this: RecordColumns<BatchContext>, i: number, topic: string, partition: number): BatchedRecord {
    const segment = this.segments[this.segmentOf[i]!]!;
    const b = 4 * i;
    const bounds = this.bounds;
    return new DecodedRecord(topic, partition, segment.data, bounds[b]!, bounds[b + 1]!, bounds[b + 2]!, bounds[b + 3]!, this.offsetAt(i), this.timestamps[i]!, this.headers?.[i], segment.context);
  }

  truncate(length: number): void {
    this.length = Math.min(length, this.length);
  }

  /** The records as a changelog's reader writes them: a null key as NULL_KEY, each record an object made when read. */
  *[Symbol.iterator](): Iterator<ChangelogRecord> {
    const bounds = this.bounds;
    for (let i = 0; i < this.length; i++) {
      const data = this.segments[this.segmentOf[i]!]!.data;
      const b = 4 * i;
      const keyStart = bounds[b]!;
      const valueStart = bounds[b + 2]!;
      yield {
        key: keyStart < 0 ? NULL_KEY : data.subarray(keyStart, bounds[b + 1]!),
        value: valueStart < 0 ? null : data.subarray(valueStart, bounds[b + 3]!),
        timestamp: this.timestamps[i]!,
        offset: this.offsetAt(i),
      };
    }
  }

  private grow(): void {
    const capacity = Math.max(16, 2 * this.offsetDeltas.length);
    const offsetDeltas = new Int32Array(capacity);
    offsetDeltas.set(this.offsetDeltas);
    this.offsetDeltas = offsetDeltas;
    const timestamps = new Float64Array(capacity);
    timestamps.set(this.timestamps);
    this.timestamps = timestamps;
    const bounds = new Int32Array(4 * capacity);
    bounds.set(this.bounds);
    this.bounds = bounds;
    const segmentOf = new Int32Array(capacity);
    segmentOf.set(this.segmentOf);
    this.segmentOf = segmentOf;
    if (this.headers !== undefined) for (let i = this.headers.length; i < capacity; i++) this.headers.push(undefined);
  }
}

/**
 * Some of a fetched partition's records, in offset order: those from `start` on in the columns, or, when records
 * were left out (aborted, control), those at `positions`.
 */
export class FetchedRecords implements FetchedRecordList {
  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly columns: RecordColumns,
    private readonly start: number,
    readonly length: number,
    private readonly positions?: Int32Array,
  ) {}

  /** All the records of `columns` from `start` on. */
  static from(topic: string, partition: number, columns: RecordColumns, start = 0): FetchedRecords {
    return new FetchedRecords(topic, partition, columns, start, Math.max(0, columns.length - start));
  }

  /** The records at these positions of `columns`. */
  static at(topic: string, partition: number, columns: RecordColumns, positions: Int32Array): FetchedRecords {
    return new FetchedRecords(topic, partition, columns, 0, positions.length, positions);
  }

  private position(index: number): number {
    return this.positions === undefined ? this.start + index : this.positions[this.start + index]!;
  }

  offsetAt(index: number): number {
    return this.columns.offsetAt(this.position(index));
  }

  timestampAt(index: number): number {
    return this.columns.timestampAt(this.position(index));
  }

  recordAt(index: number): BatchedRecord {
    return this.columns.recordAt(this.position(index), this.topic, this.partition);
  }

  isControlAt(index: number): boolean {
    return this.columns.contextAt(this.position(index)).isControlBatch;
  }

  /** These records from `index` on. */
  skip(index: number): FetchedRecords {
    if (index === 0) return this;
    return new FetchedRecords(this.topic, this.partition, this.columns, this.start + index, Math.max(0, this.length - index), this.positions);
  }

  /**
   * The records as an array, for what reads a batch's `messages` (kafkajs' consumer, an application's own consumer):
   * its elements are made when read, so that kafkajs' look at a batch's last record makes one record, not all.
   */
  asArray(): BatchedRecord[] {
    // The target stays empty (an array whose length were set would hold room for every element): `length` and the
    // elements are answered from the columns.
    const target: BatchedRecord[] = [];
    const indexOf = (property: string | symbol): number | undefined => {
      const index = typeof property === 'string' ? arrayIndex(property) : undefined;
      return index !== undefined && index < this.length ? index : undefined;
    };
    return new Proxy(target, {
      get: (array, property, receiver) => {
        if (property === 'length') return this.length;
        const index = indexOf(property);
        return index === undefined ? Reflect.get(array, property, receiver) : this.recordAt(index);
      },
      has: (array, property) => indexOf(property) !== undefined || Reflect.has(array, property),
      ownKeys: (array) => [...Array.from({ length: this.length }, (_, i) => String(i)), ...Reflect.ownKeys(array)],
      getOwnPropertyDescriptor: (array, property) => {
        if (property === 'length') return { value: this.length, writable: true, enumerable: false, configurable: false };
        const index = indexOf(property);
        if (index === undefined) return Reflect.getOwnPropertyDescriptor(array, property);
        return { value: this.recordAt(index), writable: false, enumerable: true, configurable: true };
      },
    });
  }
}

/** The array index a property key names, or undefined. */
function arrayIndex(property: string): number | undefined {
  const index = Number(property);
  return Number.isInteger(index) && index >= 0 && String(index) === property ? index : undefined;
}

/** Records already made, as a list the tasks take them from: the global thread's and the test driver's. */
export class RecordArray implements FetchedRecordList {
  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly records: readonly ConsumedRecord[],
    /** The first of `records` in this list: a skip is a view, not a copy. */
    private readonly start = 0,
  ) {}

  get length(): number {
    return this.records.length - this.start;
  }

  offsetAt(index: number): number {
    return this.records[this.start + index]!.offset;
  }

  timestampAt(index: number): number {
    return this.records[this.start + index]!.timestamp;
  }

  recordAt(index: number): ConsumedRecord {
    return this.records[this.start + index]!;
  }

  skip(index: number): FetchedRecordList {
    return new RecordArray(this.topic, this.partition, this.records, this.start + index);
  }
}
