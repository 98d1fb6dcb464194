import { failedAnswer } from '../cluster/peer-protocol';
import { mergeParts } from './merge';
import type { Part } from './types';

const base = { server: 'node-a:8080', store: 'kv', type: 'key_value', started: Date.now() - 5 };
const ok = (server: string, records: unknown[], remote = true): Part => ({ server, remote, answer: { ok: true, records } });
const failed = (server: string, message: string, flags: { notAvailable?: boolean; timedOut?: boolean } = {}): Part => ({
  server,
  remote: true,
  answer: failedAnswer(message, flags.notAvailable ? 'NOT_AVAILABLE' : flags.timedOut ? 'TIMED_OUT' : 'INTERNAL', flags.timedOut ?? false),
});

describe('mergeParts', () => {
  it('SUCCESS: every part answered; totals per part and over all parts', () => {
    const response = mergeParts({
      ...base,
      parts: [ok('node-a:8080', [{ key: 'a', value: 1 }], false), ok('node-b:8080', [{ key: 'b', value: 2 }, { key: 'c', value: 3 }]), ok('node-c:8080', [])],
    });
    expect(response).toEqual({
      took: expect.any(Number),
      timeout: false,
      server: 'node-a:8080',
      status: 'SUCCESS',
      result: {
        store: 'kv',
        type: 'key_value',
        total: 3,
        success: [
          { server: 'node-a:8080', remote: false, total: 1, records: [{ key: 'a', value: 1 }] },
          { server: 'node-b:8080', remote: true, total: 2, records: [{ key: 'b', value: 2 }, { key: 'c', value: 3 }] },
          { server: 'node-c:8080', remote: true, total: 0, records: [] },
        ],
        failure: [],
      },
    });
    expect(response.took).toBeGreaterThanOrEqual(5);
  });

  it('PARTIAL: some parts failed; each failure names its server; timeout when one ran out of time', () => {
    const response = mergeParts({
      ...base,
      parts: [ok('node-a:8080', [{ key: 'count', value: 4 }], false), failed('node-b:8080', 'no answer within the query timeout', { timedOut: true })],
    });
    expect(response.status).toBe('PARTIAL');
    expect(response.timeout).toBe(true);
    expect(response.result.total).toBe(1);
    expect(response.result.failure).toEqual([{ server: 'node-b:8080', remote: true, errors: [{ message: 'no answer within the query timeout' }] }]);
    expect(response.result.error).toBeUndefined();
  });

  it('ERROR: every part failed', () => {
    const response = mergeParts({ ...base, parts: [failed('node-b:8080', 'unreachable'), failed('node-c:8080', 'boom', { notAvailable: true })] });
    expect(response.status).toBe('ERROR');
    expect(response.timeout).toBe(false);
    expect(response.result.total).toBe(0);
    expect(response.result.failure).toHaveLength(2);
  });

  it('NOT_AVAILABLE: every part failed because the store was not queryable when the retries ran out', () => {
    const response = mergeParts({ ...base, parts: [failed('node-a:8080', "partition 0 of store 'kv' is restoring", { notAvailable: true })] });
    expect(response.status).toBe('NOT_AVAILABLE');
    expect(response.result.error).toBe("node-a:8080: partition 0 of store 'kv' is restoring");
    expect(response.result.failure).toHaveLength(1);
  });

  it('NOT_AVAILABLE and NO_RESULT without parts, with the reason', () => {
    expect(mergeParts({ ...base, parts: [], unanswered: { status: 'NOT_AVAILABLE', reason: 'no server hosts it' } })).toMatchObject({
      status: 'NOT_AVAILABLE',
      result: { total: 0, success: [], failure: [], error: 'no server hosts it' },
    });
    expect(mergeParts({ ...base, parts: [], unanswered: { status: 'NO_RESULT', reason: 'remote access is not allowed' } })).toMatchObject({
      status: 'NO_RESULT',
      result: { error: 'remote access is not allowed' },
    });
  });
});
