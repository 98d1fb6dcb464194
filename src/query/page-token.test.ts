import { createHmac } from 'node:crypto';
import { SluiceError } from '../errors';
import { MAX_TOKEN_LENGTH, PageTokens, queryFingerprint, TOKEN_TTL_MS } from './page-token';
import { parseQueryRequest } from './parse';

const request = parseQueryRequest({ type: 'key_value', query: { range: { key_from: 'a', key_to: 'z' } }, set_options: { limit: 10 } });
const fingerprint = queryFingerprint('app', 'kv', request);
const positions = [
  { partition: 3, done: false, afterKey: Buffer.from('user-17') },
  { partition: 0, done: true },
];

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    expect(error).toMatchObject({ exception: 'InvalidQuery', kind: 'invalid' });
    return (error as Error).message;
  }
  throw new Error('expected an InvalidQuery');
}

/** A token signed as a node without a cluster secret signs: what a forger who knows the public key can make. */
function forged(payload: unknown): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${encoded}.${createHmac('sha256', 'sluice-page-token-v1').update(encoded).digest().subarray(0, 16).toString('base64url')}`;
}

describe('continuation tokens', () => {
  const tokens = new PageTokens(undefined);

  it('round-trip the positions, URL-safe', () => {
    const token = tokens.encode(fingerprint, positions);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(tokens.decode(token, fingerprint, 'key').positions).toEqual([
      { partition: 0, done: true },
      { partition: 3, done: false, afterKey: Buffer.from('user-17') },
    ]);
  });

  it('are bound to their query: application, store, clause and parameters', () => {
    const token = tokens.encode(fingerprint, positions);
    const other = parseQueryRequest({ type: 'key_value', query: { range: { key_from: 'a', key_to: 'y' } } });
    expect(refusal(() => tokens.decode(token, queryFingerprint('app', 'kv', other), 'key'))).toContain('issued for another query');
    expect(refusal(() => tokens.decode(token, queryFingerprint('app', 'other-store', request), 'key'))).toContain('issued for another query');
  });

  it('refuse a tampered token: any character of the payload or the MAC changed, or cut', () => {
    const token = tokens.encode(fingerprint, positions);
    const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(refusal(() => tokens.decode(flip(5), fingerprint, 'key'))).toContain('altered');
    expect(refusal(() => tokens.decode(flip(token.length - 3), fingerprint, 'key'))).toContain('altered');
    expect(refusal(() => tokens.decode(token.slice(0, -4), fingerprint, 'key'))).toContain('altered');
    expect(refusal(() => tokens.decode(token.replace('.', ''), fingerprint, 'key'))).toContain('<payload>.<mac>');
    expect(refusal(() => tokens.decode(`${token}=`, fingerprint, 'key'))).toContain('<payload>.<mac>');
    expect(refusal(() => tokens.decode('', fingerprint, 'key'))).toContain('<payload>.<mac>');
  });

  it('refuse a token signed with another cluster secret', () => {
    const signed = new PageTokens('secret-1').encode(fingerprint, positions);
    expect(new PageTokens('secret-1').decode(signed, fingerprint, 'key').positions).toHaveLength(2);
    expect(refusal(() => new PageTokens('secret-2').decode(signed, fingerprint, 'key'))).toContain('altered');
    expect(refusal(() => tokens.decode(signed, fingerprint, 'key'))).toContain('altered');
  });

  it('refuse an expired token', () => {
    let now = 1_800_000_000_000;
    const clocked = new PageTokens(undefined, () => now);
    const token = clocked.encode(fingerprint, positions);
    now += TOKEN_TTL_MS - 1000;
    expect(clocked.decode(token, fingerprint, 'key').positions).toHaveLength(2);
    now += 2000;
    expect(refusal(() => clocked.decode(token, fingerprint, 'key'))).toContain('expired');
  });

  it('refuse an oversized token before looking at it', () => {
    expect(refusal(() => tokens.decode('A'.repeat(MAX_TOKEN_LENGTH + 1), fingerprint, 'key'))).toContain(`longer than ${MAX_TOKEN_LENGTH}`);
  });

  it('parse strictly: a well-signed payload of any other shape is refused', () => {
    const e = Math.ceil(Date.now() / 1000) + 60;
    const base = { v: 1, e, q: fingerprint, p: [[0, 'd']] };
    expect(tokens.decode(forged(base), fingerprint, 'key').positions).toEqual([{ partition: 0, done: true }]);
    const cases: [unknown, string][] = [
      ['text', 'not an object'],
      [[1], 'not an object'],
      [{ ...base, v: 3 }, 'version 1 or 2'],
      [{ ...base, extra: 1 }, 'version 1'],
      [{ v: 1, e, q: fingerprint }, 'version 1'],
      [{ ...base, e: 'later' }, 'no expiry'],
      [{ ...base, p: 'all' }, 'not a list'],
      [{ ...base, p: [[0]] }, '[partition, place]'],
      [{ ...base, p: [[-1, 'd']] }, 'no partition'],
      [{ ...base, p: [[1.5, 'd']] }, 'no partition'],
      [{ ...base, p: [[2 ** 31, 'd']] }, 'no partition'],
      [{ ...base, p: [[0, 'd'], [0, 'd']] }, 'no partition, or one twice'],
      [{ ...base, p: [[0, 'x']] }, 'neither done nor a key'],
      [{ ...base, p: [[0, 'k!!']] }, 'neither done nor a key'],
      [{ ...base, p: [[0, 5]] }, 'neither done nor a key'],
    ];
    for (const [payload, message] of cases) expect(refusal(() => tokens.decode(forged(payload), fingerprint, 'key'))).toContain(message);
    expect(refusal(() => tokens.decode(forged({ ...base, p: [[0, 'e' + 'A'.repeat(12)]] }), fingerprint, 'key'))).toContain('neither done nor a key');
    const notJson = Buffer.from('{nope').toString('base64url');
    const signed = `${notJson}.${createHmac('sha256', 'sluice-page-token-v1').update(notJson).digest().subarray(0, 16).toString('base64url')}`;
    expect(refusal(() => tokens.decode(signed, fingerprint, 'key'))).toContain('not JSON');
  });

  describe('of window and session scans', () => {
    const windowRequest = parseQueryRequest({ type: 'window', query: { fetch_all: { time_from: 0, time_to: 100 } }, set_options: { limit: 10 } });
    const windowPrint = queryFingerprint('app', 'win', windowRequest);
    const entry = Buffer.concat([Buffer.alloc(8), Buffer.from('user-17'), Buffer.alloc(12)]);

    it('round-trip entry positions in version 2; key positions stay version 1, which nodes of the previous version read', () => {
      const token = tokens.encode(windowPrint, [{ partition: 1, done: false, afterEntry: entry }, { partition: 0, done: true }]);
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).v).toBe(2);
      expect(tokens.decode(token, windowPrint, 'entry').positions).toEqual([
        { partition: 0, done: true },
        { partition: 1, done: false, afterEntry: entry },
      ]);
      expect(JSON.parse(Buffer.from(tokens.encode(fingerprint, positions).split('.')[0], 'base64url').toString()).v).toBe(1);
      expect(tokens.decode(tokens.encode(windowPrint, [{ partition: 0, done: true }]), windowPrint, 'entry').positions).toEqual([{ partition: 0, done: true }]);
    });

    it('refuse a key position, an entry position in version 1, or one too short to be a position', () => {
      const e = Math.ceil(Date.now() / 1000) + 60;
      const place = (bytes: Buffer) => `e${bytes.toString('base64url')}`;
      const cases: [unknown, string][] = [
        [{ v: 2, e, q: windowPrint, p: [[0, 'kAAAA']] }, 'neither done nor an entry position'],
        [{ v: 1, e, q: windowPrint, p: [[0, place(entry)]] }, 'neither done nor an entry position of version 2'],
        [{ v: 2, e, q: windowPrint, p: [[0, place(Buffer.alloc(8))]] }, 'too short'],
      ];
      for (const [payload, message] of cases) expect(refusal(() => tokens.decode(forged(payload), windowPrint, 'entry'))).toContain(message);
      expect(tokens.decode(forged({ v: 2, e, q: windowPrint, p: [[0, place(entry)]] }), windowPrint, 'entry').positions).toEqual([{ partition: 0, done: false, afterEntry: entry }]);
    });
  });
});
