/** `sluice query --all`: every page followed, written as NDJSON lines as they come, failures marked and counted. */

import { QueryResult, type QueryOptions, type StoreQueryResult } from '../../client';
import { pageLines, writeAllPages, type PagedStore } from './query-pages';

function page(keys: string[], next?: string, failed = false): StoreQueryResult {
  return {
    took: 1,
    timeout: false,
    server: 'node-1:8080',
    status: failed ? 'PARTIAL' : 'SUCCESS',
    ...(next === undefined ? {} : { next }),
    result: {
      total: keys.length,
      success: [{ server: 'node-1:8080', remote: false, total: keys.length, records: keys.map((key) => ({ key, value: key.length })) }],
      failure: failed ? [{ server: 'node-2:8080', remote: true, errors: [{ message: 'node-2 is gone' }] }] : [],
    },
  };
}

/** A store whose pages are given, which records the token each query was asked with. */
function pagedStore(pages: Record<string, StoreQueryResult>, asked: (string | undefined)[], next?: string): PagedStore {
  return {
    withOptions: (options: QueryOptions) => pagedStore(pages, asked, options.next),
    query: async () => {
      asked.push(next);
      return new QueryResult(pages[next ?? 'first']!);
    },
  };
}

const parse = (lines: string[]) => lines.join('').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

it('follows the tokens to the last page; one line per record with its server; complete when every page was', async () => {
  const asked: (string | undefined)[] = [];
  const written: string[] = [];
  const store = pagedStore({ first: page(['a', 'b'], 't1'), t1: page(['c', 'd'], 't2'), t2: page(['e']) }, asked);
  const complete = await writeAllPages(store, { type: 'key_value', clause: 'all', params: {} }, async (line) => void written.push(line));
  expect(complete).toBe(true);
  expect(asked).toEqual([undefined, 't1', 't2']);
  const lines = parse(written);
  expect(lines.map((line) => line.key)).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(lines[0]).toEqual({ part: 'success', server: 'node-1:8080', remote: false, key: 'a', value: 1 });
});

it('writes a failed part as its own marked line and answers incomplete; the later pages are still read', async () => {
  const written: string[] = [];
  const store = pagedStore({ first: page(['a'], 't1', true), t1: page(['b']) }, []);
  expect(await writeAllPages(store, { type: 'key_value', clause: 'all', params: {} }, async (line) => void written.push(line))).toBe(false);
  expect(parse(written)).toEqual([
    { part: 'success', server: 'node-1:8080', remote: false, key: 'a', value: 1 },
    { part: 'failure', status: 'PARTIAL', server: 'node-2:8080', remote: true, errors: [{ message: 'node-2 is gone' }] },
    { part: 'success', server: 'node-1:8080', remote: false, key: 'b', value: 1 },
  ]);
});

it('a page nobody answered is a failure line with its status and error', () => {
  const result = new QueryResult({ ...page([]), status: 'NOT_AVAILABLE', result: { total: 0, success: [], failure: [], error: 'no instance is running' } });
  expect(parse(pageLines(result))).toEqual([{ part: 'failure', status: 'NOT_AVAILABLE', errors: [{ message: 'no instance is running' }] }]);
});

it('asks for the next page only once the writer has taken the lines of this one', async () => {
  const asked: (string | undefined)[] = [];
  let release: () => void = () => undefined;
  const store = pagedStore({ first: page(['a'], 't1'), t1: page(['b']) }, asked);
  const done = writeAllPages(store, { type: 'key_value', clause: 'all', params: {} }, () => new Promise((resolve) => (release = resolve)));
  await new Promise((resolve) => setImmediate(resolve));
  expect(asked).toEqual([undefined]);
  release();
  await new Promise((resolve) => setImmediate(resolve));
  release();
  await done;
  expect(asked).toEqual([undefined, 't1']);
});
