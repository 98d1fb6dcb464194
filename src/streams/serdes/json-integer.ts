import { describeJson, serdeError } from './serde-errors';

/**
 * Reads an integer key from JSON for the integer and long serdes: a JSON number, or a string of decimal digits
 * (clients that cannot carry 64-bit numbers send them as strings), within [min, max].
 */
export function integerFromJson(serdeName: string, json: unknown, min: number, max: number): number {
  let value: number;
  if (typeof json === 'number') {
    value = json;
  } else if (typeof json === 'string' && /^[+-]?\d+$/.test(json)) {
    value = Number(json);
  } else {
    throw serdeError(serdeName, `expected an integer, got ${describeJson(json)}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw serdeError(serdeName, `expected an integer in [${min}, ${max}], got ${describeJson(json)}`);
  }
  return value;
}
