import { InvalidQuery } from '../errors';
import type { StoreType } from '../streams/state/store';
import { clauseSpec, typeMatches } from './clauses';
import type { StoreSchema } from './schema';
import type { KeyParam, QueryRequest } from './types';

/** A request checked against its store: the types match and every key is decoded with the store's key serde. */
export interface BoundQuery {
  request: QueryRequest;
  /** The store's own type (the request may name the plain type of a timestamped store). */
  storeType: StoreType;
  keyed: boolean;
  /** Decoded keys: `key`, `key_from`, `key_to`. */
  keys: Partial<Record<Exclude<KeyParam, 'prefix'>, unknown>>;
  /** The serialized `key` of a keyed clause: its partition decides which server answers. */
  keyBytes: Buffer | undefined;
  /** The serialized `prefix` of prefix_scan. */
  prefixBytes: Buffer | undefined;
}

function decode(schema: StoreSchema, param: KeyParam, json: unknown): { key: unknown; bytes: Buffer } {
  try {
    const key = schema.keySerde.fromJson(json);
    return { key, bytes: schema.keySerde.serialize(key) };
  } catch (error) {
    throw new InvalidQuery(`parameter '${param}' is not a key of this store: ${(error as Error).message}`);
  }
}

/**
 * The bytes a prefix scan looks for. With the JSON serde a string prefix means "keys that are strings starting with
 * it": its JSON text without the closing quote. Other serdes serialize the prefix as a key.
 */
function prefixBytes(schema: StoreSchema, json: unknown): Buffer {
  if (schema.keySerde.name === 'json' && typeof json === 'string') return Buffer.from(JSON.stringify(json).slice(0, -1), 'utf8');
  return decode(schema, 'prefix', json).bytes;
}

export function bindQuery(request: QueryRequest, schema: StoreSchema, store: string): BoundQuery {
  if (!typeMatches(request.type, schema.type)) {
    throw new InvalidQuery(`store '${store}' is a ${schema.type} store; a ${request.type} query does not apply to it`);
  }
  const keys: BoundQuery['keys'] = {};
  let keyBytes: Buffer | undefined;
  for (const param of ['key', 'key_from', 'key_to'] as const) {
    if (!(param in request.keys)) continue;
    const decoded = decode(schema, param, request.keys[param]);
    keys[param] = decoded.key;
    if (param === 'key') keyBytes = decoded.bytes;
  }
  const spec = clauseSpec(schema.type, request.clause);
  if (spec === undefined) {
    throw new InvalidQuery(`store '${store}' is a ${schema.type} store; clause '${request.clause}' does not apply to it`);
  }
  return {
    request,
    storeType: schema.type,
    keyed: spec.keyed,
    keys,
    keyBytes,
    prefixBytes: 'prefix' in request.keys ? prefixBytes(schema, request.keys.prefix) : undefined,
  };
}
