import { serdeByName } from '../streams/serdes/serde-by-name';
import type { Serde } from '../streams/serdes/serde';
import type { StateStore, StoreType } from '../streams/state/store';
import { STORE_TYPES } from './clauses';

/** What validating and routing a query needs to know of a store. */
export interface StoreSchema {
  type: StoreType;
  keySerde: Serde<unknown>;
}

/** What a node or thread that has no queryable partition of a store needs to validate and route a query on it. */
export interface StoreDescription {
  type: string;
  /** Name of the key serde, as `serdeByName` resolves it. */
  keySerde: string;
}

/** Every store Sluice builds carries its serdes; a hand-made StateStore may not. */
function keySerdeOf(store: StateStore): Serde<unknown> | undefined {
  return (store as StateStore & { keySerde?: Serde<unknown> }).keySerde;
}

export function schemaOfStore(store: StateStore): StoreSchema | undefined {
  const keySerde = keySerdeOf(store);
  return keySerde === undefined ? undefined : { type: store.type, keySerde };
}

/** The schema of a store from the description a peer gave; a message when it cannot be used here. */
export function schemaOfDescription(description: StoreDescription): StoreSchema | string {
  const type = STORE_TYPES.find((t) => t === description.type);
  if (type === undefined) return `a peer describes the store with an unknown type '${description.type}'`;
  try {
    return { type, keySerde: serdeByName(description.keySerde) };
  } catch {
    return `the store's key serde '${description.keySerde}' is not one this node can resolve by name`;
  }
}

export function describeSchema(schema: StoreSchema): StoreDescription {
  return { type: schema.type, keySerde: schema.keySerde.name };
}
