/**
 * The continuation token of a paged query (`next`): where each store partition's reading stopped. It crosses a
 * trust boundary (the client hands it back), so it is bounded, MAC-checked, and parsed strictly: a token that is
 * too long, altered, expired, issued for another query or not exactly of the expected shape is an InvalidQuery.
 *
 * Form: `<payload>.<mac>`, both base64url (URL-safe, no padding). The payload is JSON
 * `{"v":1,"e":<expiry, epoch s>,"q":<query fingerprint>,"p":[[<partition>,"d" | "k<base64url key bytes>"], ...]}`:
 * per partition, done, or resume after that serialized key; a partition absent has not been read yet. Version 2
 * adds `"e<base64url position>"`: resume after the entry at that position (window and session scans, see
 * PositionedEntry). A token is written in the lowest version that holds its positions, so the key-value tokens of
 * this version stay readable by nodes of the previous one during a rolling upgrade. The MAC is
 * HMAC-SHA256 keyed with the cluster secret when there is one, so any node checks any node's tokens; without a
 * secret the key is public and the MAC only catches damage, which is enough: a forged token can only name
 * positions in the store the query already reads, which the query itself could ask for.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidQuery } from '../errors';
import type { PartitionPosition } from './parts';
import type { QueryRequest } from './types';

/** Longest token taken: keys above about 16 KiB cannot be paged through. */
export const MAX_TOKEN_LENGTH = 32 * 1024;
/** How long a token is good for. */
export const TOKEN_TTL_MS = 3600_000;
const MAX_PARTITIONS = 100_000;
const MAC_BYTES = 16;
const PUBLIC_KEY = 'sluice-page-token-v1';
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export interface PageToken {
  positions: PartitionPosition[];
}

/** What a clause resumes after: a serialized key (key-value scans) or an entry's position (window and session scans). */
export type PlaceKind = 'key' | 'entry';

/** A segment id (8 bytes), then a store key: shorter is no position any store gives. */
const MIN_ENTRY_BYTES = 9;

/** What a token is bound to: the same application, store and clause, with the same parameters. */
export function queryFingerprint(applicationId: string, store: string, request: QueryRequest): string {
  const canonical = JSON.stringify([applicationId, store, request.type, request.clause, Object.entries(request.keys).sort(), Object.entries(request.times).sort()]);
  return createHash('sha256').update(canonical).digest().subarray(0, 9).toString('base64url');
}

export class PageTokens {
  private readonly key: string;

  /** `secret`: the cluster secret, shared by every node; none: a public key (see above). */
  constructor(secret: string | undefined, private readonly now: () => number = Date.now) {
    this.key = secret === undefined ? PUBLIC_KEY : `${PUBLIC_KEY}:${secret}`;
  }

  encode(fingerprint: string, positions: readonly PartitionPosition[]): string {
    const entries = [...positions].sort((a, b) => a.partition - b.partition).map((p) => [p.partition, placeOf(p)]);
    const version = positions.some((p) => !p.done && p.afterEntry !== undefined) ? 2 : 1;
    const payload = Buffer.from(JSON.stringify({ v: version, e: Math.ceil((this.now() + TOKEN_TTL_MS) / 1000), q: fingerprint, p: entries })).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The positions of a token handed back with a query of this fingerprint and place kind; InvalidQuery for any other token. */
  decode(token: string, fingerprint: string, kind: PlaceKind): PageToken {
    if (token.length > MAX_TOKEN_LENGTH) throw invalid(`it is longer than ${MAX_TOKEN_LENGTH} characters`);
    const dot = token.indexOf('.');
    const payload = token.slice(0, dot);
    const mac = token.slice(dot + 1);
    if (dot < 0 || !BASE64URL.test(payload) || !BASE64URL.test(mac)) throw invalid('it is not of the form <payload>.<mac> in base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(payload))) throw invalid('it was altered or issued by another cluster');
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid('its payload is not JSON');
    }
    const positions = strictPositions(parsed, fingerprint, kind, this.now());
    return { positions };
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }
}

function placeOf(position: PartitionPosition): string {
  if (position.done) return 'd';
  if (position.afterEntry !== undefined) return `e${position.afterEntry.toString('base64url')}`;
  return `k${(position.afterKey ?? Buffer.alloc(0)).toString('base64url')}`;
}

function invalid(why: string): Error {
  return new InvalidQuery(`set_options.next is not a continuation token of this query: ${why}`);
}

function strictPositions(parsed: unknown, fingerprint: string, kind: PlaceKind, now: number): PartitionPosition[] {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('its payload is not an object');
  const fields = parsed as Record<string, unknown>;
  if (Object.keys(fields).sort().join(',') !== 'e,p,q,v' || (fields.v !== 1 && fields.v !== 2)) throw invalid('its payload is not of version 1 or 2');
  if (typeof fields.e !== 'number' || !Number.isSafeInteger(fields.e)) throw invalid('it has no expiry');
  if (fields.e * 1000 < now) throw invalid(`it expired at ${new Date(fields.e * 1000).toISOString()}; start again without it`);
  if (fields.q !== fingerprint) throw invalid('it was issued for another query (application, store, clause or parameters)');
  if (!Array.isArray(fields.p) || fields.p.length > MAX_PARTITIONS) throw invalid('its positions are not a list');
  const seen = new Set<number>();
  return fields.p.map((entry: unknown) => {
    if (!Array.isArray(entry) || entry.length !== 2) throw invalid('a position is not [partition, place]');
    const [partition, place] = entry as [unknown, unknown];
    if (typeof partition !== 'number' || !Number.isSafeInteger(partition) || partition < 0 || partition > 2 ** 31 - 1 || seen.has(partition)) {
      throw invalid('a position names no partition, or one twice');
    }
    seen.add(partition);
    if (place === 'd') return { partition, done: true };
    const expected = kind === 'key' ? 'k' : 'e';
    if (typeof place !== 'string' || !place.startsWith(expected) || !BASE64URL.test(place.slice(1)) || (expected === 'e' && fields.v !== 2)) {
      throw invalid(`a position is neither done nor ${kind === 'key' ? 'a key' : 'an entry position of version 2'}`);
    }
    const bytes = Buffer.from(place.slice(1), 'base64url');
    if (kind === 'key') return { partition, done: false, afterKey: bytes };
    if (bytes.length < MIN_ENTRY_BYTES) throw invalid('an entry position is too short');
    return { partition, done: false, afterEntry: bytes };
  });
}
