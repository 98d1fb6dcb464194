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
    expect(error).toMatchObject({ exception: 'InvalidQuery', statusCode: 400 });
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
    expect(tokens.decode(token, fingerprint).positions).toEqual([
      { partition: 0, done: true },
      { partition: 3, done: false, afterKey: Buffer.from('user-17') },
    ]);
  });

  it('are bound to their query: application, store, clause and parameters', () => {
    const token = tokens.encode(fingerprint, positions);
    const other = parseQueryRequest({ type: 'key_value', query: { range: { key_from: 'a', key_to: 'y' } } });
    expect(refusal(() => tokens.decode(token, queryFingerprint('app', 'kv', other)))).toContain('issued for another query');
    expect(refusal(() => tokens.decode(token, queryFingerprint('app', 'other-store', request)))).toContain('issued for another query');
  });

  it('refuse a tampered token: any character of the payload or the MAC changed, or cut', () => {
    const token = tokens.encode(fingerprint, positions);
    const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(refusal(() => tokens.decode(flip(5), fingerprint))).toContain('altered');
    expect(refusal(() => tokens.decode(flip(token.length - 3), fingerprint))).toContain('altered');
    expect(refusal(() => tokens.decode(token.slice(0, -4), fingerprint))).toContain('altered');
    expect(refusal(() => tokens.decode(token.replace('.', ''), fingerprint))).toContain('<payload>.<mac>');
    expect(refusal(() => tokens.decode(`${token}=`, fingerprint))).toContain('<payload>.<mac>');
    expect(refusal(() => tokens.decode('', fingerprint))).toContain('<payload>.<mac>');
  });

  it('refuse a token signed with another cluster secret', () => {
    const signed = new PageTokens('secret-1').encode(fingerprint, positions);
    expect(new PageTokens('secret-1').decode(signed, fingerprint).positions).toHaveLength(2);
    expect(refusal(() => new PageTokens('secret-2').decode(signed, fingerprint))).toContain('altered');
    expect(refusal(() => tokens.decode(signed, fingerprint))).toContain('altered');
  });

  it('refuse an expired token', () => {
    let now = 1_800_000_000_000;
    const clocked = new PageTokens(undefined, () => now);
    const token = clocked.encode(fingerprint, positions);
    now += TOKEN_TTL_MS - 1000;
    expect(clocked.decode(token, fingerprint).positions).toHaveLength(2);
    now += 2000;
    expect(refusal(() => clocked.decode(token, fingerprint))).toContain('expired');
  });

  it('refuse an oversized token before looking at it', () => {
    expect(refusal(() => tokens.decode('A'.repeat(MAX_TOKEN_LENGTH + 1), fingerprint))).toContain(`longer than ${MAX_TOKEN_LENGTH}`);
  });

  it('parse strictly: a well-signed payload of any other shape is refused', () => {
    const e = Math.ceil(Date.now() / 1000) + 60;
    const base = { v: 1, e, q: fingerprint, p: [[0, 'd']] };
    expect(tokens.decode(forged(base), fingerprint).positions).toEqual([{ partition: 0, done: true }]);
    const cases: [unknown, string][] = [
      ['text', 'not an object'],
      [[1], 'not an object'],
      [{ ...base, v: 2 }, 'version 1'],
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
    for (const [payload, message] of cases) expect(refusal(() => tokens.decode(forged(payload), fingerprint))).toContain(message);
    const notJson = Buffer.from('{nope').toString('base64url');
    const signed = `${notJson}.${createHmac('sha256', 'sluice-page-token-v1').update(notJson).digest().subarray(0, 16).toString('base64url')}`;
    expect(refusal(() => tokens.decode(signed, fingerprint))).toContain('not JSON');
  });
});
