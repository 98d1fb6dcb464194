/** Which clauses each store type takes, with their parameters (compatibility file, section 5). */
import type { StoreType } from '../streams/state/store';
import type { PlaceKind } from './page-token';
import type { ClauseName, ParamName } from './types';

export type StoreFamily = 'key_value' | 'window' | 'session' | 'versioned';

export interface ClauseSpec {
  params: readonly ParamName[];
  /** Parameters that may be left out. */
  optional?: readonly ParamName[];
  /** Answered by the one server that owns the key's partition. */
  keyed: boolean;
}

const CLAUSES: Record<StoreFamily, Partial<Record<ClauseName, ClauseSpec>>> = {
  key_value: {
    get: { params: ['key'], keyed: true },
    range: { params: ['key_from', 'key_to'], keyed: false },
    all: { params: [], keyed: false },
    count: { params: [], keyed: false },
    prefix_scan: { params: ['prefix'], keyed: false },
    reverse_range: { params: ['key_from', 'key_to'], keyed: false },
    reverse_all: { params: [], keyed: false },
  },
  window: {
    fetch: { params: ['key', 'time'], keyed: true },
    fetch_key_range: { params: ['key_from', 'key_to', 'time_from', 'time_to'], keyed: false },
    // One key: only the owner of its partition has its windows.
    fetch_time_range: { params: ['key', 'time_from', 'time_to'], keyed: true },
    fetch_all: { params: ['time_from', 'time_to'], keyed: false },
    all: { params: [], keyed: false },
  },
  session: {
    fetch: { params: ['key'], keyed: true },
    fetch_key_range: { params: ['key_from', 'key_to'], keyed: false },
  },
  // Kafka Streams' VersionedKeyQuery: the latest version, or with as_of the one valid then.
  versioned: {
    get: { params: ['key', 'as_of'], optional: ['as_of'], keyed: true },
  },
};

export const STORE_TYPES: readonly StoreType[] = ['key_value', 'timestamped_key_value', 'window', 'timestamped_window', 'session', 'versioned_key_value'];

export const CLAUSE_NAMES: readonly ClauseName[] = [
  'get',
  'range',
  'all',
  'count',
  'prefix_scan',
  'reverse_range',
  'reverse_all',
  'fetch',
  'fetch_key_range',
  'fetch_time_range',
  'fetch_all',
];

export function familyOf(type: StoreType): StoreFamily {
  if (type === 'key_value' || type === 'timestamped_key_value') return 'key_value';
  if (type === 'window' || type === 'timestamped_window') return 'window';
  if (type === 'versioned_key_value') return 'versioned';
  return 'session';
}

export function isTimestamped(type: StoreType): boolean {
  return type === 'timestamped_key_value' || type === 'timestamped_window';
}

/** The parameters a clause cannot do without. */
export function requiredParams(spec: ClauseSpec): ParamName[] {
  return spec.params.filter((name) => !spec.optional?.includes(name));
}

export function clauseSpec(type: StoreType, clause: ClauseName): ClauseSpec | undefined {
  return CLAUSES[familyOf(type)][clause];
}

export function clausesOf(type: StoreType): ClauseName[] {
  return Object.keys(CLAUSES[familyOf(type)]) as ClauseName[];
}

/**
 * Whether a query of type `requested` may run on a store of type `actual`: the same type, or a plain type on the
 * timestamped store of its kind (whose values are then answered without their timestamps, as Kafka Streams allows),
 * or a key-value query on a versioned store, whose `get` then answers the latest value (its other clauses do not apply).
 */
export function typeMatches(requested: StoreType, actual: StoreType): boolean {
  if (requested === actual) return true;
  if (requested === 'key_value') return actual === 'timestamped_key_value' || actual === 'versioned_key_value';
  return requested === 'window' && actual === 'timestamped_window';
}

/**
 * Clauses whose answers page with a continuation token: the key-value scans, which read each partition in key
 * order and so resume after a key, and the window and session scans, which read each partition segment by segment
 * in store-key order and so resume after an entry's position. prefix_scan and point reads (a versioned store's get
 * too) take `limit` without one.
 */
const PAGED: Record<StoreFamily, readonly ClauseName[]> = {
  key_value: ['all', 'reverse_all', 'range', 'reverse_range'],
  window: ['fetch_key_range', 'fetch_time_range', 'fetch_all', 'all'],
  session: ['fetch', 'fetch_key_range'],
  versioned: [],
};

export function pages(type: StoreType, clause: ClauseName): boolean {
  return PAGED[familyOf(type)].includes(clause);
}

/** What a paged clause of a store type resumes after. */
export function placeKind(type: StoreType): PlaceKind {
  return familyOf(type) === 'key_value' ? 'key' : 'entry';
}
