/**
 * The rule for application ids. An id names the consumer group, prefixes the internal topics
 * (`<application.id>-<name>-changelog`, `-repartition`), names a directory under `state.dir` and is a path segment
 * of the management API, so it keeps to Kafka's legal characters for group ids and topic names, `[a-zA-Z0-9._-]`,
 * and is never `.` or `..`, which a path reads as the state directory itself or its parent.
 */

import { InvalidApplicationId } from '../../errors';

/**
 * At most 100 characters: the API router's limit for a path segment, and internal topic names stay within Kafka's
 * 249 for store and processor names of up to 136 characters (`-` and `-repartition` take the other 13).
 */
export const MAX_APPLICATION_ID_LENGTH = 100;

const LEGAL_CHARACTERS = /^[a-zA-Z0-9._-]*$/;

/** The same rule as one regular expression, for schemas (the API's path parameters in the OpenAPI document). */
export const APPLICATION_ID_PATTERN = `^(?!\\.{1,2}$)[a-zA-Z0-9._-]{1,${MAX_APPLICATION_ID_LENGTH}}$`;

/** What is wrong with an application id; undefined when it is legal. */
export function applicationIdProblem(id: string): string | undefined {
  if (id.length === 0) return 'it is empty';
  if (id.length > MAX_APPLICATION_ID_LENGTH) return `it is longer than ${MAX_APPLICATION_ID_LENGTH} characters`;
  if (!LEGAL_CHARACTERS.test(id)) return "it may contain only letters, digits, '.', '_' and '-'";
  if (id === '.' || id === '..') return `'${id}' names a directory, not an application`;
  return undefined;
}

/** The id, when legal; else the catalogue's InvalidApplicationId (400). */
export function checkApplicationId(id: string): string {
  const problem = applicationIdProblem(id);
  if (problem !== undefined) throw new InvalidApplicationId(shown(id), problem);
  return id;
}

/** An id as an error message quotes it: a hostile one can be long. */
function shown(id: string): string {
  return id.length > MAX_APPLICATION_ID_LENGTH ? `${id.slice(0, MAX_APPLICATION_ID_LENGTH)}...` : id;
}
