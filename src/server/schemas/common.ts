/** Schemas shared by every resource: the error body, path parameters, scalar maps. */

import { APPLICATION_ID_PATTERN, MAX_APPLICATION_ID_LENGTH } from '../../streams/runtime/application-id';
import { ZONED_TIMESTAMP_PATTERN } from '../representations/timestamp';

export const errorBody = {
  type: 'object',
  description: 'The error body of every 4xx and 5xx answer',
  required: ['error_code', 'message', 'exception', 'path'],
  properties: {
    error_code: { type: 'integer', description: 'The HTTP status' },
    message: { type: 'string' },
    exception: { type: 'string', description: 'Stable error name from the error catalogue' },
    path: { type: 'string', description: 'The request path' },
  },
} as const;

/** Adds the error body to a route's responses. */
export function withErrors<R extends Record<string, unknown>>(responses: R): R & { '4xx': typeof errorBody; '5xx': typeof errorBody } {
  return { ...responses, '4xx': errorBody, '5xx': errorBody };
}

export const zonedTimestamp = {
  type: 'string',
  description: 'ISO-8601 with offset and bracketed zone, e.g. 2026-11-22T01:30:00.123Z[UTC]',
  pattern: ZONED_TIMESTAMP_PATTERN,
} as const;

/** An application id in a path; the check itself (400 InvalidApplicationId) runs before validation, this documents it. */
export const applicationIdParam = {
  type: 'string',
  description: `Application id: 1 to ${MAX_APPLICATION_ID_LENGTH} letters, digits, '.', '_' or '-', neither '.' nor '..'`,
  pattern: APPLICATION_ID_PATTERN,
} as const;

export const applicationIdParams = {
  type: 'object',
  required: ['applicationId'],
  properties: { applicationId: applicationIdParam },
} as const;

export const configValue = { type: ['string', 'number', 'boolean'] } as const;

export const configMap = {
  type: 'object',
  description: 'Configuration key to value',
  additionalProperties: configValue,
} as const;

export const stringArray = { type: 'array', items: { type: 'string' } } as const;

export const plainText = (description: string) =>
  ({ description, content: { 'text/plain': { schema: { type: 'string' } } } }) as const;

export interface ApplicationIdParams {
  applicationId: string;
}
