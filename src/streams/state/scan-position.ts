import { int64Bytes } from '../serdes/int64';
import type { BytesRange, BytesTable } from './bytes-table';

/** Length of the segment id that starts a position (PositionedEntry). */
export const SEGMENT_ID_BYTES = 8;

const ZERO = Buffer.from([0]);

/** One segment of a resumable scan: its id as the first bytes of its entries' positions, its table, the range to read. */
export interface ScanSegment {
  segment: Buffer;
  table: BytesTable;
  range: BytesRange;
}

/** The position of the entry of store key `storeKey` in segment `segment` (see PositionedEntry); a copy. */
export function positionOf(segment: Buffer, storeKey: Buffer): Buffer {
  return Buffer.concat([segment, storeKey]);
}

/**
 * The segments a forward scan reads, oldest first, each with its range, resumed after the position `after`:
 * segments before the position's are skipped, the position's is read from just past its store key (the key
 * followed by a zero byte is the least key above it), later ones whole. Positions compare as bytes (ids are never
 * negative), so any bytes name a place in the scan: a position of a gone segment or entry resumes at what follows.
 */
export function resumedSegments(segments: readonly { id: number; table: BytesTable }[], range: BytesRange, after: Buffer | undefined): ScanSegment[] {
  const parts: ScanSegment[] = [];
  for (const { id, table } of segments) {
    const segment = int64Bytes(id);
    if (after === undefined) {
      parts.push({ segment, table, range });
      continue;
    }
    const order = Buffer.compare(segment, after.subarray(0, SEGMENT_ID_BYTES));
    if (order < 0) continue;
    if (order > 0) {
      parts.push({ segment, table, range });
      continue;
    }
    const next = Buffer.concat([after.subarray(SEGMENT_ID_BYTES), ZERO]);
    const from = range.from === undefined || Buffer.compare(next, range.from) > 0 ? next : range.from;
    const past = range.to === undefined ? -1 : Buffer.compare(from, range.to);
    if (past > 0 || (past === 0 && !range.toInclusive)) continue;
    parts.push({ segment, table, range: { ...range, from } });
  }
  return parts;
}
