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
import type { PartEnd, PartitionPosition, PartStream, PeerFailure } from '../cluster/peer-protocol';
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
  failure: PeerFailure;
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

/** The full answer, as chunks of JSON text. */
export async function* responseBody(
  head: ResponseHead,
  parts: readonly StreamedPart[],
  unanswered?: Unanswered,
  paging?: Paging,
): AsyncGenerator<string, void, undefined> {
  try {
    let text = `{"server":${JSON.stringify(head.server)},"result":{"store":${JSON.stringify(head.store)},"type":${JSON.stringify(head.type)},"success":[`;
    let successes = 0;
    let total = 0;
    const failed: Failed[] = [];
    const ends: PartEnd[] = [];
    const firsts = prefetch(parts);
    for (const [index, part] of parts.entries()) {
      let written = 0;
      let end: PartEnd;
      for (let pulled = 0; ; pulled++) {
        const next = await (pulled === 0 ? firsts[index]! : pull(part.stream));
        if (next.done) {
          end = next.value;
          break;
        }
        if (next.value.count === 0) continue;
        text += written === 0 ? `${successes > 0 ? ',' : ''}{"server":${JSON.stringify(part.server)},"remote":${part.remote},"records":[` : ',';
        if (written === 0) successes++;
        written += next.value.count;
        yield text + next.value.json;
        text = '';
      }
      ends.push(end);
      if (!end.ok) failed.push({ server: part.server, remote: part.remote, failure: end, after: written });
      const replica = end.ok && end.replica ? `,"standby":${end.replica.standby},"lag":${end.replica.lag}` : '';
      if (written > 0) text += `],"total":${written}${replica}}`;
      else if (end.ok) {
        text += `${successes > 0 ? ',' : ''}{"server":${JSON.stringify(part.server)},"remote":${part.remote},"records":[],"total":0${replica}}`;
        successes++;
      }
      total += written;
    }
    const status = unanswered?.status ?? statusOf(successes, failed);
    let error: string | undefined;
    if (unanswered) error = unanswered.reason;
    else if (status === 'NOT_AVAILABLE') error = failed.flatMap((part) => part.failure.messages.map((message) => `${part.server}: ${message}`)).join('; ');
    const timeout = failed.some((part) => part.failure.timedOut);
    text += `],"failure":[${failed.map(failurePartJson).join(',')}],"total":${total}${error === undefined ? '' : `,"error":${JSON.stringify(error)}`}}`;
    const next = paging === undefined ? undefined : nextToken(paging, ends, unanswered === undefined);
    yield `${text},"status":"${status}","timeout":${timeout},"took":${Date.now() - head.started}${next === undefined ? '' : `,"next":"${next}"`}}`;
  } finally {
    closeAll(parts);
  }
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
