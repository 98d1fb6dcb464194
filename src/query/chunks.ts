/** How a part's records are cut into chunks, wherever the part is read (this thread, a stream thread's worker). */
import { failedAnswer, failureKindOf, type PeerFailure, type RecordChunk } from '../cluster/peer-protocol';

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

export function chunkOf(records: unknown[]): RecordChunk {
  // One JSON.stringify per chunk, its brackets cut: the records are spliced into the answer.
  return { json: JSON.stringify(records).slice(1, -1), count: records.length };
}

export function failureOf(error: unknown): PeerFailure {
  return failedAnswer(error instanceof Error ? error.message : String(error), failureKindOf(error));
}
