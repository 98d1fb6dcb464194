/** How a part's records are cut into chunks, wherever the part is read (this thread, a stream thread's worker). */
import { failedAnswer, type PartFailure, type RecordChunk } from './parts';

/** Records per chunk of a local part: enough that per-chunk costs vanish, few enough to keep memory flat. */
export const CHUNK_RECORDS = 1000;

export function take(records: Iterator<unknown, void, undefined>, count: number): unknown[] {
  const chunk: unknown[] = [];
  while (chunk.length < count) {
    const next = records.next();
    if (next.done) break;
    chunk.push(next.value);
  }
  return chunk;
}

/**
 * The records, CHUNK_RECORDS at a time, starting with `first` when it was read already; returns a failure when the
 * query's deadline passes between two chunks, and undefined once every record was read.
 */
export function* chunksOf(records: Iterator<unknown, void, undefined>, deadline: number, first = take(records, CHUNK_RECORDS)): Generator<unknown[], PartFailure | undefined, undefined> {
  for (let chunk = first; ; chunk = take(records, CHUNK_RECORDS)) {
    if (chunk.length > 0) yield chunk;
    if (chunk.length < CHUNK_RECORDS) return undefined;
    if (Date.now() >= deadline) return failedAnswer('the query timeout (query_timeout_ms) ran out while the part was read', 'TIMED_OUT');
  }
}

export function chunkOf(records: unknown[]): RecordChunk {
  // One JSON.stringify per chunk, its brackets cut: the records are spliced into the answer.
  return { json: JSON.stringify(records).slice(1, -1), count: records.length };
}

/** Chunks of one part as one chunk (a part small enough to be answered whole). */
export function joinChunks(chunks: readonly RecordChunk[]): RecordChunk {
  const filled = chunks.filter((chunk) => chunk.count > 0);
  return { json: filled.map((chunk) => chunk.json).join(','), count: filled.reduce((sum, chunk) => sum + chunk.count, 0) };
}
