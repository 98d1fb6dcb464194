import type { ProcessorContext } from '../../processor/processor';
import type { Headers } from '../../processor/record';
import type { KeyValue, SessionStore, ValueAndTimestamp, Window, Windowed } from '../../state/store';
import type { Change } from './change';
import { cacheKeyId, RecordCache } from './record-cache';
import type { OldValues } from './table-processors';
import { registerCacheReader } from './value-getters';

interface SessionEntry<K, A> {
  session: Windowed<K>;
  /** The new aggregate; null removes the session. */
  value: A | null;
  /** The old value sent downstream: what the store held before the first cached update, when caching. */
  oldAgg: A | null;
  headers: Headers;
}

function slot(window: Window): string {
  return `${window.start}:${window.end}`;
}

function sessionOrder<K, A>(a: KeyValue<Windowed<K>, A>, b: KeyValue<Windowed<K>, A>): number {
  return a.key.window.end - b.key.window.end || a.key.window.start - b.key.window.start;
}

/**
 * The session store of a session aggregation seen through its record cache (see CachedWindowStore). Updates go
 * downstream stamped with the session's end, as Kafka Streams sends them.
 */
export class CachedSessionStore<K, A> {
  private readonly cache: RecordCache<SessionEntry<K, A>> | undefined;

  constructor(
    private readonly context: ProcessorContext<unknown, unknown>,
    private readonly store: SessionStore<K, A>,
    private readonly oldValues: OldValues,
  ) {
    this.cache = RecordCache.create(context, (entry) => this.flushed(entry));
    if (this.cache) {
      registerCacheReader(store, (session: Windowed<K>): ValueAndTimestamp<A> | null | undefined => {
        const entry = this.cache?.get(this.keyId(session.key), slot(session.window));
        if (entry === undefined) return undefined;
        return entry.value === null ? null : { value: entry.value, timestamp: session.window.end };
      });
    }
  }

  /** Sessions of `key` that end at or after `earliestEnd` and start at or before `latestStart`, by end then start. */
  findSessions(key: K, earliestEnd: number, latestStart: number): KeyValue<Windowed<K>, A>[] {
    const sessions = new Map<string, KeyValue<Windowed<K>, A> | null>();
    for (const kv of this.store.findSessions(key, earliestEnd, latestStart)) sessions.set(slot(kv.key.window), kv);
    if (this.cache) {
      for (const entry of this.cache.entriesOf(this.keyId(key))) {
        const window = entry.session.window;
        if (window.end < earliestEnd || window.start > latestStart) continue;
        sessions.set(slot(window), entry.value === null ? null : { key: entry.session, value: entry.value });
      }
    }
    return [...sessions.values()].filter((kv): kv is KeyValue<Windowed<K>, A> => kv !== null).sort(sessionOrder);
  }

  /** Writes a session's aggregate, or with null removes the session; `oldAgg` as in CachedWindowStore.put. */
  put(session: Windowed<K>, value: A | null, oldAgg: A | null, headers: Headers): void {
    if (!this.cache) {
      this.write({ session, value, oldAgg, headers });
      return;
    }
    const keyId = this.keyId(session.key);
    const cached = this.cache.get(keyId, slot(session.window));
    const first = cached
      ? cached.oldAgg
      : (this.store.fetchSession(session.key, session.window.start, session.window.end) ?? null);
    this.cache.put(keyId, slot(session.window), { session, value, oldAgg: first, headers });
  }

  /** A cached session that never reached the store and is removed again is not written, nor sent. */
  private flushed(entry: SessionEntry<K, A>): void {
    if (entry.value !== null || entry.oldAgg !== null) this.write(entry);
  }

  private write(entry: SessionEntry<K, A>): void {
    if (entry.value === null) this.store.remove(entry.session);
    else this.store.put(entry.session, entry.value);
    const change: Change<A> = { newValue: entry.value, oldValue: this.oldValues.send ? entry.oldAgg : null };
    this.context.forward({ key: entry.session, value: change, timestamp: entry.session.window.end, headers: entry.headers });
  }

  private keyId(key: K): string {
    return cacheKeyId(key, this.store.keySerde);
  }
}
