/**
 * The answer of a store query written as it is read (compatibility file, section 5): JSON text in chunks that
 * together are exactly the contract's body. JSON leaves the order of an object's fields free, so every field that
 * is only known at the end (`total`, `status`, `timeout`, `took`) comes after the records:
 *
 *   {"server", "result": {"store", "type", "success": [{"server", "remote", "records": [...], "total", "standby"?, "lag"?}, ...],
 *    "failure": [...], "total", "error"?}, "status", "timeout", "took", "next"?}
 *
 * Parts are written one after the other, each as it is pulled (the local part first): a part's records arrive in
 * chunks of serialized records that are spliced in, never parsed or copied into one string. A part that fails
 * before its first record is a failure part only. A part that fails after some of its records were written keeps
 * them in its success part (its `total` counts what was written) and has a failure part too, under the same
 * server, whose message says how many records came before the failure; the status is then PARTIAL, as for any
 * answer with both records and failures. A client learns that records are missing from the status and the failure parts, as for
 * a part that failed outright; the body always stays valid JSON.
 */
import type { PartEnd, PartFailure, PartitionPosition, PartStream, RecordChunk } from './parts';
import type { QueryStatus } from './types';

/** A server's part, as it is read. */
export interface StreamedPart {
  server: string;
  remote: boolean;
  stream: PartStream;
}

export interface ResponseHead {
  /** This server (host:port), which answers the query. */
  server: string;
  store: string;
  /** The type the request named. */
  type: string;
  /** Epoch ms the query began. */
  started: number;
}

/** Why nobody answers: the plan found nobody to ask, or nobody able to answer. */
export interface Unanswered {
  status: 'NOT_AVAILABLE' | 'NO_RESULT';
  reason: string;
}

/** A paged query: the positions it resumed from, and how to make the token of where it stopped. */
export interface Paging {
  requested: readonly PartitionPosition[];
  encode(positions: PartitionPosition[]): string;
}

/**
 * The token of the next page, or undefined when every part read all its partitions. A partition keeps the
 * position it was asked from unless its part tells a newer one, so a part that failed is read again from there
 * (its records written before the failure, if any, come again). A part that tells nothing of its partitions (a
 * peer of the previous version) counts as complete: it cannot resume, and must not make the client loop. A query
 * nobody answered (NOT_AVAILABLE, NO_RESULT) gives back the positions it was asked from, to be tried again.
 */
function nextToken(paging: Paging, ends: readonly PartEnd[], answered: boolean): string | undefined {
  const positions = new Map(paging.requested.map((position) => [position.partition, position]));
  let complete = answered;
  for (const end of ends) {
    if (!end.ok) complete = false;
    else if (end.paging) {
      for (const position of end.paging.positions) positions.set(position.partition, position);
      complete &&= end.paging.complete;
    }
  }
  return complete ? undefined : paging.encode([...positions.values()]);
}

interface Failed {
  server: string;
  remote: boolean;
  failure: PartFailure;
  /** Records written before the part failed. */
  after: number;
}

function statusOf(successes: number, failed: readonly Failed[]): QueryStatus {
  if (failed.length === 0) return successes > 0 ? 'SUCCESS' : 'NO_RESULT';
  if (successes > 0) return 'PARTIAL';
  // A node that is down holds data that is not available right now, as a restoring one does: asked again, it may be.
  return failed.every((part) => part.failure.kind === 'NOT_AVAILABLE' || part.failure.kind === 'UNREACHABLE') ? 'NOT_AVAILABLE' : 'ERROR';
}

function failurePartJson(part: Failed): string {
  const messages =
    part.after === 0
      ? part.failure.messages
      : part.failure.messages.map((message) => `failed after ${part.after} records, which its success part holds; the rest are missing: ${message}`);
  return JSON.stringify({ server: part.server, remote: part.remote, errors: messages.map((message) => ({ message })) });
}

/** Pulls a part's next chunk; a stream that throws despite its contract ends as an internal failure. */
async function pull(stream: PartStream): Promise<IteratorResult<{ json: string; count: number }, PartEnd>> {
  try {
    return await stream.next();
  } catch (error) {
    return { done: true, value: { ok: false, messages: [error instanceof Error ? error.message : String(error)], kind: 'INTERNAL', timedOut: false } };
  }
}

/**
 * Asks every part for its first chunk at once: the parts start together (the local read, and each peer's first
 * chunk on its way), and each has started, so that returning it releases what it holds. One chunk per part waits.
 */
function prefetch(parts: readonly StreamedPart[]): Promise<IteratorResult<{ json: string; count: number }, PartEnd>>[] {
  return parts.map((part) => pull(part.stream));
}

/**
 * Ends every part not read to its end, so that none keeps a store iterator or a peer call open. Not awaited: a
 * part busy with a call that does not answer ends at that call's deadline, which must not hold the answer back.
 */
function closeAll(parts: readonly StreamedPart[]): void {
  for (const part of parts) part.stream.return({ ok: true }).catch(() => undefined);
}

/**
 * The text of an answer, piece by piece as its parts are read: what is known at each step is written then, and
 * what only the end knows (totals, status) at the end. The streamed body and the body answered at once both write
 * through it.
 */
class ResponseText {
  private successes = 0;
  private total = 0;
  private readonly failed: Failed[] = [];
  private readonly ends: PartEnd[] = [];
  /** Records of the part being written. */
  private written = 0;

  /** The answer's opening, up to its first success part. */
  static head(head: ResponseHead): string {
    return `{"server":${JSON.stringify(head.server)},"result":{"store":${JSON.stringify(head.store)},"type":${JSON.stringify(head.type)},"success":[`;
  }

  /** A chunk of a part's records (count > 0), with the part's opening before its first. */
  records(part: Omit<StreamedPart, 'stream'>, chunk: RecordChunk): string {
    const text = this.written === 0 ? `${this.successes > 0 ? ',' : ''}{"server":${JSON.stringify(part.server)},"remote":${part.remote},"records":[` : ',';
    if (this.written === 0) this.successes++;
    this.written += chunk.count;
    return text + chunk.json;
  }

  /** The close of a part at its end: its total, or the whole empty part when it answered no record. */
  partEnd(part: Omit<StreamedPart, 'stream'>, end: PartEnd): string {
    const written = this.written;
    this.written = 0;
    this.ends.push(end);
    this.total += written;
    if (!end.ok) this.failed.push({ server: part.server, remote: part.remote, failure: end, after: written });
    const replica = end.ok && end.replica ? `,"standby":${end.replica.standby},"lag":${end.replica.lag}` : '';
    if (written > 0) return `],"total":${written}${replica}}`;
    if (!end.ok) return '';
    return `${this.successes++ > 0 ? ',' : ''}{"server":${JSON.stringify(part.server)},"remote":${part.remote},"records":[],"total":0${replica}}`;
  }

  /** The answer's close: the failure parts, the totals and the status. */
  tail(head: ResponseHead, unanswered: Unanswered | undefined, paging: Paging | undefined): string {
    const { failed } = this;
    const status = unanswered?.status ?? statusOf(this.successes, failed);
    let error: string | undefined;
    if (unanswered) error = unanswered.reason;
    else if (status === 'NOT_AVAILABLE') error = failed.flatMap((part) => part.failure.messages.map((message) => `${part.server}: ${message}`)).join('; ');
    const timeout = failed.some((part) => part.failure.timedOut);
    const next = paging === undefined ? undefined : nextToken(paging, this.ends, unanswered === undefined);
    return (
      `],"failure":[${failed.map(failurePartJson).join(',')}],"total":${this.total}${error === undefined ? '' : `,"error":${JSON.stringify(error)}`}}` +
      `,"status":"${status}","timeout":${timeout},"took":${Date.now() - head.started}${next === undefined ? '' : `,"next":"${next}"`}}`
    );
  }
}

/** The full answer, as chunks of JSON text. */
export async function* responseBody(
  head: ResponseHead,
  parts: readonly StreamedPart[],
  unanswered?: Unanswered,
  paging?: Paging,
): AsyncGenerator<string, void, undefined> {
  try {
    const response = new ResponseText();
    let text = ResponseText.head(head);
    const firsts = prefetch(parts);
    for (const [index, part] of parts.entries()) {
      for (let pulled = 0; ; pulled++) {
        const next = await (pulled === 0 ? firsts[index]! : pull(part.stream));
        if (next.done) {
          text += response.partEnd(part, next.value);
          break;
        }
        if (next.value.count === 0) continue;
        yield text + response.records(part, next.value);
        text = '';
      }
    }
    yield text + response.tail(head, unanswered, paging);
  } finally {
    closeAll(parts);
  }
}

/** A part read whole already: its records (none when count is 0) and how it ended. */
export interface ReadPart {
  server: string;
  remote: boolean;
  records: RecordChunk;
  end: PartEnd;
}

/** The answer of one part read whole already, in one piece: the same text responseBody writes for it. */
export function wholeResponse(head: ResponseHead, part: ReadPart, recordsOnly: boolean): string {
  if (recordsOnly) return `[${part.records.json}]`;
  const response = new ResponseText();
  const records = part.records.count > 0 ? response.records(part, part.records) : '';
  return ResponseText.head(head) + records + response.partEnd(part, part.end) + response.tail(head, undefined, undefined);
}

/** Only the records of the success parts, as one JSON array (`.../stores/{name}/records`); failures leave no trace. */
export async function* recordsBody(parts: readonly StreamedPart[]): AsyncGenerator<string, void, undefined> {
  try {
    let text = '[';
    let any = false;
    const firsts = prefetch(parts);
    for (const [index, part] of parts.entries()) {
      for (let pulled = 0; ; pulled++) {
        const next = await (pulled === 0 ? firsts[index]! : pull(part.stream));
        if (next.done) break;
        if (next.value.count === 0) continue;
        yield text + (any ? ',' : '') + next.value.json;
        any = true;
        text = '';
      }
    }
    yield `${text}]`;
  } finally {
    closeAll(parts);
  }
}

/** Every chunk of a body, joined: for small answers, sent in one piece. */
export async function collectBody(body: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk;
  return text;
}
