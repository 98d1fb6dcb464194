import Ajv from 'ajv';
import * as schemas from '../server/schemas/applications';
import type { PartEnd, PartStream, RecordChunk } from './parts';
import { collectBody, recordsBody, responseBody, wholeResponse, type StreamedPart } from './response-body';

const head = { server: 'node-a:8080', store: 'kv', type: 'key_value', started: Date.now() };
const validate = new Ajv({ strict: false }).compile(schemas.storeQueryResult);

/** A part of `records`, cut into chunks of the given sizes (the rest in one), ending with `end`. */
function part(server: string, records: unknown[], sizes: number[], end: PartEnd = { ok: true }, remote = true): StreamedPart & { returned(): boolean } {
  let returned = false;
  async function* stream(): PartStream {
    try {
      let at = 0;
      for (const size of [...sizes, records.length]) {
        const chunk = records.slice(at, at + size);
        at += chunk.length;
        const value: RecordChunk = { json: JSON.stringify(chunk).slice(1, -1), count: chunk.length };
        if (chunk.length > 0 || size === 0) yield value;
        if (at >= records.length) break;
      }
      return end;
    } finally {
      returned = true;
    }
  }
  return { server, remote, stream: stream(), returned: () => returned };
}

const records = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ key: `${prefix}-${i}`, value: { n: i, text: 'a"b\\c\u2028' } }));

function randomSizes(seed: number, total: number): number[] {
  const sizes: number[] = [];
  let x = seed;
  for (let sum = 0; sum < total; ) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const size = x % 7;
    sizes.push(size);
    sum += size;
  }
  return sizes;
}

describe('the streamed answer of a store query', () => {
  it('is the contract body, valid JSON, whatever the chunking of the parts', async () => {
    const a = records('a', 40);
    const b = records('b', 25);
    for (let seed = 1; seed <= 20; seed++) {
      const parts = [part('node-a:8080', a, randomSizes(seed, 40), { ok: true }, false), part('node-b:8080', [], []), part('node-c:8080', b, randomSizes(seed * 7, 25))];
      const body = JSON.parse(await collectBody(responseBody(head, parts)));
      expect(validate(body)).toBe(true);
      expect(body).toEqual({
        took: expect.any(Number),
        timeout: false,
        server: 'node-a:8080',
        status: 'SUCCESS',
        result: {
          store: 'kv',
          type: 'key_value',
          total: 65,
          success: [
            { server: 'node-a:8080', remote: false, total: 40, records: a },
            { server: 'node-b:8080', remote: true, total: 0, records: [] },
            { server: 'node-c:8080', remote: true, total: 25, records: b },
          ],
          failure: [],
        },
      });
    }
  });

  it('a part that fails mid-stream keeps what it wrote in its success part and has a failure part saying so: PARTIAL', async () => {
    const a = records('a', 10);
    const failure = { ok: false as const, messages: ['store closed'], kind: 'NOT_AVAILABLE' as const, timedOut: false };
    const body = JSON.parse(await collectBody(responseBody(head, [part('node-a:8080', a, [3, 3], failure, false)])));
    expect(validate(body)).toBe(true);
    expect(body.status).toBe('PARTIAL');
    expect(body.result.total).toBe(10);
    expect(body.result.success).toEqual([{ server: 'node-a:8080', remote: false, total: 10, records: a }]);
    expect(body.result.failure).toEqual([
      { server: 'node-a:8080', remote: false, errors: [{ message: 'failed after 10 records, which its success part holds; the rest are missing: store closed' }] },
    ]);
  });

  it('a part that fails before its first record is a failure part only; the status says whether anything answered', async () => {
    const timedOut = { ok: false as const, messages: ['no answer within the query timeout (query_timeout_ms)'], kind: 'TIMED_OUT' as const, timedOut: true };
    const partial = JSON.parse(await collectBody(responseBody(head, [part('node-a:8080', records('a', 2), []), part('node-b:8080', [], [], timedOut)])));
    expect(validate(partial)).toBe(true);
    expect(partial).toMatchObject({ status: 'PARTIAL', timeout: true, result: { total: 2, failure: [{ server: 'node-b:8080', errors: [{ message: timedOut.messages[0] }] }] } });
    expect(partial.result.success.map((p: { server: string }) => p.server)).toEqual(['node-a:8080']);

    const notAvailable = { ok: false as const, messages: ['restoring'], kind: 'NOT_AVAILABLE' as const, timedOut: false };
    const none = JSON.parse(await collectBody(responseBody(head, [part('node-a:8080', [], [], notAvailable)])));
    expect(validate(none)).toBe(true);
    expect(none).toMatchObject({ status: 'NOT_AVAILABLE', result: { total: 0, success: [], error: 'node-a:8080: restoring' } });
  });

  it('a part that throws despite its contract is an internal failure, and the body stays valid', async () => {
    async function* throwing(): PartStream {
      yield { json: '{"key":1,"value":2}', count: 1 };
      throw new Error('boom');
    }
    const body = JSON.parse(await collectBody(responseBody(head, [{ server: 's', remote: true, stream: throwing() }])));
    expect(validate(body)).toBe(true);
    expect(body).toMatchObject({ status: 'PARTIAL', result: { success: [{ total: 1 }], failure: [{ errors: [{ message: expect.stringContaining('boom') }] }] } });
  });

  it('with nobody to ask: no part, the reason as error', async () => {
    const body = JSON.parse(await collectBody(responseBody(head, [], { status: 'NO_RESULT', reason: 'remote access is not allowed' })));
    expect(validate(body)).toBe(true);
    expect(body).toMatchObject({ status: 'NO_RESULT', result: { total: 0, success: [], failure: [], error: 'remote access is not allowed' } });
  });

  it('the records route answers one JSON array of every success record, whatever the chunking', async () => {
    const a = records('a', 9);
    const b = records('b', 4);
    const text = await collectBody(recordsBody([part('x', a, [1, 0, 5]), part('y', [], []), part('z', b, [2])]));
    expect(JSON.parse(text)).toEqual([...a, ...b]);
    expect(JSON.parse(await collectBody(recordsBody([])))).toEqual([]);
  });

  it('a body returned before its end returns every part, so none keeps a store iterator or a call open', async () => {
    const parts = [part('a', records('a', 10), [1]), part('b', records('b', 10), [1])];
    const body = responseBody(head, parts);
    await body.next();
    await body.return();
    await new Promise((resolve) => setImmediate(resolve));
    expect(parts.map((p) => p.returned())).toEqual([true, true]);
  });
});

describe('the answer of a part read whole at once', () => {
  // `took` is the one field that may differ between two writings: it is the time spent.
  const withoutTook = (text: string) => ({ ...(JSON.parse(text) as Record<string, unknown>), took: 0 });

  it.each([
    ['one record', records('k', 1)],
    ['no record (the key is absent)', []],
    ['several records', records('w', 5)],
  ])('is what the streamed answer writes for the same part: %s', async (_label, found) => {
    const chunk: RecordChunk = { json: JSON.stringify(found).slice(1, -1), count: found.length };
    const whole = wholeResponse(head, { server: 'node-a:8080', remote: false, records: chunk, end: { ok: true } }, false);
    const streamed = await collectBody(responseBody(head, [part('node-a:8080', found, [], { ok: true }, false)]));
    expect(validate(JSON.parse(whole))).toBe(true);
    expect(withoutTook(whole)).toEqual(withoutTook(streamed));
    expect(JSON.parse(whole)).toMatchObject({ status: 'SUCCESS', result: { total: found.length, success: [{ server: 'node-a:8080', remote: false, records: found, total: found.length }], failure: [] } });
  });

  it('answers only the records when asked so, as recordsBody does', async () => {
    const found = records('k', 2);
    const chunk: RecordChunk = { json: JSON.stringify(found).slice(1, -1), count: found.length };
    const whole = wholeResponse(head, { server: 'node-a:8080', remote: false, records: chunk, end: { ok: true } }, true);
    expect(whole).toBe(await collectBody(recordsBody([part('node-a:8080', found, [], { ok: true }, false)])));
    expect(JSON.parse(whole)).toEqual(found);
  });
});
