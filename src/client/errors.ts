/**
 * The client's exceptions. An answer with an error body becomes a SluiceApiError: a SluiceError of the catalogue
 * (src/errors.ts) whose exception, code and status are the server's, its kind the one the status stands for, and which
 * carries the body as it came. What goes wrong before or around a request is one of the catalogue's client entries
 * (InvalidClientRequest, ServerUnreachable, UnexpectedResponse).
 */

import * as catalogue from '../errors';
import { errorCode, SluiceError } from '../errors';
import { kindOfHttpStatus } from '../server/http-status';
import type { ErrorBody } from './types';

/** Every error name of the catalogue: the values the server's `exception` field takes. */
export type ErrorName = {
  [K in keyof typeof catalogue]: (typeof catalogue)[K] extends catalogue.SluiceErrorClass<never> ? K : never;
}[keyof typeof catalogue];

export class SluiceApiError extends SluiceError {
  /** The error body as the server sent it. */
  readonly body: ErrorBody;
  /** The HTTP status the server answered with. */
  readonly statusCode: number;

  constructor(body: ErrorBody) {
    super(body.exception, errorCode(body.exception), kindOfHttpStatus(body.error_code), body.message);
    this.name = 'SluiceApiError';
    this.body = body;
    this.statusCode = body.error_code;
  }

  /** The HTTP status (the body's error_code). */
  get status(): number {
    return this.statusCode;
  }

  /** Whether the server answered this catalogue error, e.g. `error.is('UnknownStore')`. */
  is(name: ErrorName): boolean {
    return this.exception === name;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  const b = body as Partial<ErrorBody> | null;
  return (
    typeof b === 'object' &&
    b !== null &&
    typeof b.error_code === 'number' &&
    typeof b.message === 'string' &&
    typeof b.exception === 'string' &&
    typeof b.path === 'string'
  );
}

/** The exception of a 4xx or 5xx answer: its error body, or, from something that is not Sluice, its status and text. */
export function errorFromAnswer(status: number, text: string): SluiceError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) return new SluiceApiError(body);
  return new catalogue.UnexpectedResponse(`HTTP ${status} without Sluice's error body: ${text.slice(0, 200)}`);
}
