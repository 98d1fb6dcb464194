/**
 * Names in a query are matched loosely: case-insensitive, and `snake_case` equal to `camelCase` (the contract's
 * `key_from` and Azkarra's `keyFrom` are the same parameter; `FETCH_KEY_RANGE` is `fetch_key_range`).
 */
export function looseName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** The canonical name among `names` that `given` means, if any. */
export function matchName<N extends string>(given: string, names: readonly N[]): N | undefined {
  // The canonical spelling, as most clients send it, is found without lowering every name.
  if ((names as readonly string[]).includes(given)) return given as N;
  const loose = looseName(given);
  return names.find((name) => looseName(name) === loose);
}

/** A plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
