import { ConfigException } from '../../errors';
import { ApiTokens, hashApiToken, isApiToken, newApiToken } from './api-tokens';

describe('API tokens', () => {
  it('are random, recognisable, and found by their hash only', () => {
    const token = newApiToken();
    expect(token).toMatch(/^sluice_[A-Za-z0-9_-]{43}$/);
    expect(newApiToken()).not.toBe(token);
    expect(isApiToken(token)).toBe(true);
    expect(isApiToken('eyJhbGciOi.x.y')).toBe(false);
    const hash = hashApiToken(token);
    expect(hash).toMatch(/^sha256\$[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain(token.slice(7));
    const tokens = new ApiTokens([{ name: 'ci', hash, role: 'operator' }]);
    expect(tokens.find(token)).toEqual({ name: 'ci', role: 'operator', via: 'token' });
    expect(tokens.find(`${token}x`)).toBeUndefined();
    expect(tokens.find(hash)).toBeUndefined();
  });

  it('refuses a hash that is not sha256$<base64url>, naming the entry', () => {
    expect(() => new ApiTokens([{ name: 'ci', hash: 'sluice_plain-token', role: 'viewer' }])).toThrow(ConfigException);
    expect(() => new ApiTokens([{ name: 'ci', hash: 'sluice_plain-token', role: 'viewer' }])).toThrow(/server\.tokens\[0\]\.hash/);
  });
});
