/**
 * The query page's form as data: what the URL keeps of it, and the request body it makes. Free of Preact, so the
 * view only renders it.
 */

import type { ConsoleModel } from '../api';

export interface QueryForm {
  app: string;
  store: string;
  /** The type chosen by hand; the store's own type wins when the node reports one. */
  type: string;
  clause: string;
  /** Keys as typed; times as epoch ms text. */
  params: Record<string, string>;
  keysAsJson: boolean;
  /** The numeric options as typed (`limit`, `retries`, ...). */
  options: Record<string, string>;
  allowStale: boolean;
  remoteAccessAllowed: boolean;
}

export interface Sort {
  column: string;
  descending: boolean;
}

export type StoreTypeSpec = ConsoleModel['storeTypes'][number];
export type ClauseSpec = StoreTypeSpec['clauses'][number];

/** The options with a checkbox of their own; the body carries them only when they differ from the API's default. */
export const FLAG_OPTIONS = ['allow_stale', 'remote_access_allowed'];

export const isTimeParam = (param: string) => param.startsWith('time') || param === 'as_of';

/** What the form shows once the store and the model have had their say: the store's type, a clause of that type. */
export interface Resolved {
  stores: { name: string; type: string | null }[];
  store: string;
  /** Whether the type is the store's own (else the user picks it: no partition of the store is open here). */
  typeFromStore: boolean;
  type: string;
  clauses: ClauseSpec[];
  clause: ClauseSpec | undefined;
}

export function resolve(model: ConsoleModel, form: QueryForm): Resolved {
  const stores = model.applications.find((a) => a.id === form.app)?.stores ?? [];
  const store = stores.find((s) => s.name === form.store) ?? stores[0];
  const reported = store?.type ?? null;
  const type = reported ?? (model.storeTypes.some((t) => t.type === form.type) ? form.type : (model.storeTypes[0]?.type ?? ''));
  const clauses = model.storeTypes.find((t) => t.type === type)?.clauses ?? [];
  const clause = clauses.find((c) => c.name === form.clause) ?? clauses[0];
  return { stores, store: store?.name ?? '', typeFromStore: reported !== null, type, clauses, clause };
}

export function emptyForm(model: ConsoleModel): QueryForm {
  return {
    app: model.applications[0]?.id ?? '',
    store: '',
    type: '',
    clause: '',
    params: {},
    keysAsJson: false,
    options: {},
    allowStale: false,
    remoteAccessAllowed: true,
  };
}

/**
 * The query that was run and the order of its rows, in the URL's hash (`#/query/app=...&store=...`): one segment,
 * as the console's routes split on "/".
 */
export function formToHash(form: QueryForm, resolved: Resolved, sort: Sort | undefined): string {
  const search = new URLSearchParams({ app: form.app, store: resolved.store, type: resolved.type, clause: resolved.clause?.name ?? '' });
  for (const param of resolved.clause?.params ?? []) if ((form.params[param] ?? '') !== '') search.set(`p.${param}`, form.params[param]!);
  if (form.keysAsJson) search.set('json', '1');
  for (const [option, text] of Object.entries(form.options)) if (text.trim() !== '') search.set(`o.${option}`, text.trim());
  if (form.allowStale) search.set('o.allow_stale', 'true');
  if (!form.remoteAccessAllowed) search.set('o.remote_access_allowed', 'false');
  if (sort) search.set('sort', `${sort.descending ? '-' : ''}${sort.column}`);
  return `#/query/${search.toString()}`;
}

/** The query a URL's hash holds, and its rows' order; undefined when it holds none (`#/query`). */
export function formFromHash(hash: string, model: ConsoleModel): { form: QueryForm; sort: Sort | undefined } | undefined {
  const match = /^#\/?query\/(.+)$/.exec(hash);
  if (match === null) return undefined;
  const search = new URLSearchParams(match[1]);
  const form = emptyForm(model);
  form.app = search.get('app') ?? form.app;
  form.store = search.get('store') ?? '';
  form.type = search.get('type') ?? '';
  form.clause = search.get('clause') ?? '';
  form.keysAsJson = search.get('json') === '1';
  for (const [name, value] of search) {
    if (name.startsWith('p.')) form.params[name.slice(2)] = value;
    else if (name === 'o.allow_stale') form.allowStale = value === 'true';
    else if (name === 'o.remote_access_allowed') form.remoteAccessAllowed = value !== 'false';
    else if (name.startsWith('o.')) form.options[name.slice(2)] = value;
  }
  const sort = search.get('sort');
  return { form, sort: sort ? { column: sort.replace(/^-/, ''), descending: sort.startsWith('-') } : undefined };
}

export interface QueryBody {
  type: string;
  set_options: Record<string, unknown>;
  query: Record<string, Record<string, unknown>>;
}

export interface Planned {
  body: QueryBody;
  /** Set when the clause asked for ran as a wider one, and says so. */
  note?: string;
}

/**
 * A scan given neither of a pair of bounds runs as the clause that reads everything it would have, when the store's
 * type has that clause (the API takes no open bounds): a range with no keys is `all`.
 */
const WIDER: { clause: string; bounds: [string, string]; as: string }[] = [
  { clause: 'range', bounds: ['key_from', 'key_to'], as: 'all' },
  { clause: 'reverse_range', bounds: ['key_from', 'key_to'], as: 'reverse_all' },
  { clause: 'fetch_key_range', bounds: ['key_from', 'key_to'], as: 'fetch_all' },
  { clause: 'fetch_all', bounds: ['time_from', 'time_to'], as: 'all' },
];

/** A mistake in the form, found before anything is sent. */
export class FormError extends Error {}

function paramValue(param: string, text: string, keysAsJson: boolean): unknown {
  if (isTimeParam(param)) {
    if (text === '') throw new FormError(`${param}: choose a date and time`);
    return Number(text);
  }
  if (!keysAsJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new FormError(`${param}: not JSON (untick "keys as JSON" to send it as a string)`);
  }
}

/** Numbers go as numbers; anything else as typed, for the API to say what is wrong with it. */
const optionValue = (text: string): unknown => (/^-?\d+$/.test(text) ? Number(text) : text);

/** The request body of the form's query, `next` the page token when paging; throws a FormError. */
export function planQuery(form: QueryForm, resolved: Resolved, next?: string): Planned {
  if (resolved.clause === undefined) throw new FormError('Choose a store and a clause');
  const given = (param: string) => (form.params[param] ?? '') !== '';
  let clause = resolved.clause;
  let note: string | undefined;
  for (const wider of WIDER) {
    if (clause.name !== wider.clause) continue;
    const [from, to] = wider.bounds;
    if (given(from) !== given(to)) throw new FormError(`${from} and ${to} go together: give both, or neither to read without bounds`);
    const target = resolved.clauses.find((c) => c.name === wider.as);
    if (given(from) || target === undefined) continue;
    note = `${resolved.clause.name} with no bounds ran as ${wider.as}: it returned all ${wider.as === 'fetch_all' ? 'keys within the time bounds' : 'records of the store'}.`;
    clause = target;
  }
  const query = Object.fromEntries(
    clause.params
      // An optional parameter left empty is left out (a versioned get without as_of answers the latest version).
      .filter((p) => !clause.optional.includes(p) || given(p))
      .map((p) => [p, paramValue(p, form.params[p] ?? '', form.keysAsJson)]),
  );
  const setOptions: Record<string, unknown> = {};
  for (const [option, text] of Object.entries(form.options)) {
    // max_lag means something only with allow_stale, which the API insists on.
    if (text.trim() !== '' && (option !== 'max_lag' || form.allowStale)) setOptions[option] = optionValue(text.trim());
  }
  if (form.allowStale) setOptions.allow_stale = true;
  if (!form.remoteAccessAllowed) setOptions.remote_access_allowed = false;
  if (next !== undefined) setOptions.next = next;
  return { body: { type: resolved.type, set_options: setOptions, query: { [clause.name]: query } }, ...(note ? { note } : {}) };
}
