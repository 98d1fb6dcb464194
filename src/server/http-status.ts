/**
 * The HTTP status of each kind of error: the API's status and its error body's `error_code`. One status per kind,
 * so that a status also names its kind (the client's errors read it back).
 */

import type { ErrorKind, SluiceError } from '../errors';

const HTTP_STATUS: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  unsupported: 405,
  'timed-out': 408,
  conflict: 409,
  'too-large': 413,
  'path-too-long': 414,
  'rate-limited': 429,
  'headers-too-large': 431,
  internal: 500,
  'bad-answer': 502,
  unavailable: 503,
};

const KIND_OF_STATUS = new Map(Object.entries(HTTP_STATUS).map(([kind, status]) => [status, kind as ErrorKind]));

export function httpStatusOf(error: SluiceError): number {
  return HTTP_STATUS[error.kind];
}

/** The kind an HTTP status stands for; a status Sluice never answers with is an internal error. */
export function kindOfHttpStatus(status: number): ErrorKind {
  return KIND_OF_STATUS.get(status) ?? 'internal';
}
