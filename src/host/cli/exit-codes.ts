/**
 * The `sluice` command's exit codes, the one mapping from what went wrong to a code: scripts tell a usage error, a
 * refused credential, a node they cannot reach, a partial answer and a server's fault apart by the code alone.
 * Errors map by the catalogue's kind (src/errors.ts), as the HTTP layer maps it to a status.
 */

import { ServerUnreachable, SluiceError, type ErrorKind } from '../../errors';
import { SluiceApiError } from '../../client';

export const EXIT = {
  ok: 0,
  /** The node refused the request (a 4xx but 401 and 403: an unknown application or store, a conflict, ...), or the command failed otherwise. */
  failed: 1,
  /** Bad usage: an unknown command or option, a missing argument, input refused before sending, a configuration error. */
  usage: 2,
  /** No credentials or wrong ones (401), or a role that may not do this (403). */
  auth: 3,
  /** No answer from the node: connection refused, a name that does not resolve, a timeout. */
  unreachable: 4,
  /** A store query answered in part: some partitions or servers failed (the records that came are printed). */
  partial: 5,
  /** The node failed: a 5xx answer, or an answer that is not Sluice's. */
  server: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit codes as `sluice --help` lists them. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  success
  1  failure: the node refused the request (4xx: unknown application or store, conflict, ...), or another
  2  usage error: unknown command or option, bad argument, input refused before sending, configuration error
  3  authentication failure: missing or wrong credentials (401), or a role without the right (403)
  4  node unreachable: connection refused, unknown host, timeout
  5  partial answer: a store query some partitions or servers did not answer
  6  server error: a 5xx answer, or an answer that is not Sluice's
`;

/** An error answer of the node, by the kind its HTTP status stands for. */
const API_EXIT: Readonly<Record<ErrorKind, ExitCode>> = {
  invalid: EXIT.failed,
  unauthenticated: EXIT.auth,
  forbidden: EXIT.auth,
  'not-found': EXIT.failed,
  unsupported: EXIT.failed,
  'timed-out': EXIT.failed,
  conflict: EXIT.failed,
  'too-large': EXIT.failed,
  'path-too-long': EXIT.failed,
  'rate-limited': EXIT.failed,
  'headers-too-large': EXIT.failed,
  internal: EXIT.server,
  'bad-answer': EXIT.server,
  unavailable: EXIT.server,
};

/** An error raised on this side (the command's input, a node's configuration, a failure to start): the user's input is a usage error. */
const LOCAL_EXIT: Readonly<Record<ErrorKind, ExitCode>> = {
  invalid: EXIT.usage,
  unauthenticated: EXIT.auth,
  forbidden: EXIT.auth,
  'not-found': EXIT.usage,
  unsupported: EXIT.usage,
  'timed-out': EXIT.unreachable,
  conflict: EXIT.usage,
  'too-large': EXIT.usage,
  'path-too-long': EXIT.usage,
  'rate-limited': EXIT.usage,
  'headers-too-large': EXIT.usage,
  internal: EXIT.failed,
  'bad-answer': EXIT.server,
  unavailable: EXIT.failed,
};

export function exitCodeOf(error: SluiceError): ExitCode {
  if (error instanceof SluiceApiError) return API_EXIT[error.kind];
  // Its kind, unavailable, is also a starting node's missing broker: the entry tells the node out of reach.
  if (error.exception === ServerUnreachable.exception) return EXIT.unreachable;
  return LOCAL_EXIT[error.kind];
}
