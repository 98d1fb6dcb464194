/** Checks a response body against the route's own JSON schema, for tests (unit and integration). */

import Ajv, { type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

/** Throws with every violation when `body` does not match `schema`. */
export function expectMatchesSchema(schema: object, body: unknown): void {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(body)) {
    throw new Error(`response does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
  }
}
