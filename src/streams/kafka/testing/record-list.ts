import type { FetchedRecord, FetchedRecordList } from '../fetch-response';

/** Fetched records held in an array, as a test hands them to what reads fetch responses. */
export class RecordList implements FetchedRecordList {
  constructor(private readonly records: FetchedRecord[]) {}

  get length(): number {
    return this.records.length;
  }

  offsetAt(index: number): number {
    return this.records[index]!.offset;
  }

  truncate(length: number): void {
    this.records.length = Math.min(length, this.records.length);
  }

  [Symbol.iterator](): Iterator<FetchedRecord> {
    return this.records[Symbol.iterator]();
  }
}
