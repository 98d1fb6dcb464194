/**
 * Paged reads of window and session scans on one server: each page resumes its partition from the position the
 * page before left, so a page reads its own records only, however deep into the store it is.
 */
import { longSerde } from '../streams/serdes/long';
import { stringSerde } from '../streams/serdes/string';
import { RecordingStoreContext } from '../streams/state/recording-store-context';
import type { StateStore } from '../streams/state/store';
import { plainValues } from '../streams/state/stored-value-format';
import { CountingStorage } from '../streams/state/testing/counting-storage';
import { TypedSessionStore } from '../streams/state/typed-session-store';
import { TypedWindowStore } from '../streams/state/typed-window-store';
import { bindQuery } from './bind';
import { parseQueryRequest } from './parse';
import type { PartitionPosition } from './parts';
import { readRecords } from './read-store';
import { schemaOfStore } from './schema';

const RECORDS = 200_000;
const PAGE = 1000;
/** 2 000 keys, each in 100 windows (or sessions) over two segments of 600 000 ms. */
const keyOf = (i: number) => `key-${String(i % 2000).padStart(5, '0')}`;
const startOf = (i: number) => Math.floor(i / 2000) * 10_000;

function windowStore(storage: CountingStorage): StateStore {
  const store = new TypedWindowStore('win', 'window', storage, stringSerde, longSerde, plainValues(longSerde), {
    windowSize: 10_000,
    retentionPeriod: 1_200_000,
    segmentInterval: 600_000,
    retainDuplicates: false,
  });
  store.init(new RecordingStoreContext('/nonexistent', { loggingEnabled: false }));
  for (let i = 0; i < RECORDS; i++) store.put(keyOf(i), i, startOf(i));
  return store;
}

function sessionStore(storage: CountingStorage): StateStore {
  const store = new TypedSessionStore('ses', storage, stringSerde, longSerde, 1_200_000, 600_000);
  store.init(new RecordingStoreContext('/nonexistent', { loggingEnabled: false }));
  for (let i = 0; i < RECORDS; i++) store.put({ key: keyOf(i), window: { start: startOf(i), end: startOf(i) + 5_000 } }, i);
  return store;
}

it.each([
  ['window all', windowStore, { type: 'window', query: { all: {} } }],
  ['session fetch_key_range', sessionStore, { type: 'session', query: { fetch_key_range: { key_from: 'key-', key_to: 'key-99999' } } }],
])('%s: 200 000 records paged 1 000 at a time, each page reads 1 000 store entries, every record once', (_name, build, body) => {
  const storage = new CountingStorage();
  const store = build(storage);
  const seen = new Set<string>();
  const visits: number[] = [];
  let positions: PartitionPosition[] = [];
  for (;;) {
    const request = parseQueryRequest({ ...body, set_options: { limit: PAGE } });
    request.positions = positions;
    storage.visited = 0;
    const read = readRecords([[0, store]], bindQuery(request, schemaOfStore(store)!, store.name));
    for (let next = read.records.next(); !next.done; next = read.records.next()) {
      const { key } = next.value as { key: { key: string; window_start: number; window_end: number } };
      const id = `${key.key}@${key.window_start}-${key.window_end}`;
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
    visits.push(storage.visited);
    const stopped = read.paging!();
    if (stopped.complete) break;
    positions = stopped.positions;
    expect(positions).toEqual([{ partition: 0, done: false, afterEntry: expect.any(Buffer) }]);
  }
  expect(seen.size).toBe(RECORDS);
  // 200 full pages, then one that finds the partition's end.
  expect(visits).toEqual([...Array.from({ length: RECORDS / PAGE }, () => PAGE), 0]);
});
