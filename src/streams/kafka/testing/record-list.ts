import type { ChangelogRecord, ChangelogRecordList } from '../fetched-records';

/** Fetched records held in an array, as a test hands them to what reads fetch responses. */
export class RecordList implements ChangelogRecordList {
  constructor(private readonly records: ChangelogRecord[]) {}

  get length(): number {
    return this.records.length;
  }

  offsetAt(index: number): number {
    return this.records[index]!.offset;
  }

  truncate(length: number): void {
    this.records.length = Math.min(length, this.records.length);
  }

  [Symbol.iterator](): Iterator<ChangelogRecord> {
    return this.records[Symbol.iterator]();
  }
}
