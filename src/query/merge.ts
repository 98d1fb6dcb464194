import type { FailurePart, Part, QueryStatus, StoreQueryResponse, SuccessPart } from './types';

export interface MergeInput {
  /** This server (host:port), which answers the query. */
  server: string;
  store: string;
  /** The type the request named. */
  type: string;
  /** Epoch ms the query began. */
  started: number;
  parts: readonly Part[];
  /** When there are no parts: why (the plan found nobody to ask, or nobody able to answer). */
  unanswered?: { status: 'NOT_AVAILABLE' | 'NO_RESULT'; reason: string };
}

function statusOf(success: readonly SuccessPart[], failed: readonly Part[]): QueryStatus {
  if (failed.length === 0) return success.length > 0 ? 'SUCCESS' : 'NO_RESULT';
  if (success.length > 0) return 'PARTIAL';
  return failed.every((part) => !part.answer.ok && part.answer.kind === 'NOT_AVAILABLE') ? 'NOT_AVAILABLE' : 'ERROR';
}

/**
 * The response of compatibility file section 5: one success part per server that answered, one failure part per
 * server that did not (nothing is dropped), and the status: SUCCESS, PARTIAL (some failed), ERROR (all failed),
 * NOT_AVAILABLE (nobody could answer: no host, or the store was not queryable when the retries ran out), NO_RESULT
 * (nobody to ask).
 */
export function mergeParts(input: MergeInput): StoreQueryResponse {
  const success: SuccessPart[] = [];
  const failure: FailurePart[] = [];
  const failed: Part[] = [];
  let timeout = false;
  for (const part of input.parts) {
    const { answer } = part;
    if (answer.ok) {
      success.push({ server: part.server, remote: part.remote, total: answer.records.length, records: answer.records });
    } else {
      failed.push(part);
      failure.push({ server: part.server, remote: part.remote, errors: answer.messages.map((message) => ({ message })) });
      timeout ||= answer.timedOut;
    }
  }
  const status = input.unanswered?.status ?? statusOf(success, failed);
  let error: string | undefined;
  if (input.unanswered) error = input.unanswered.reason;
  else if (status === 'NOT_AVAILABLE') error = failure.flatMap((part) => part.errors.map((e) => `${part.server}: ${e.message}`)).join('; ');
  return {
    took: Date.now() - input.started,
    timeout,
    server: input.server,
    status,
    result: {
      store: input.store,
      type: input.type,
      total: success.reduce((sum, part) => sum + part.total, 0),
      success,
      failure,
      ...(error === undefined ? {} : { error }),
    },
  };
}
