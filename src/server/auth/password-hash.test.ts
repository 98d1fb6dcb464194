import { ConfigException } from '../../errors';
import { hashPassword, parsePasswordHash, verifyPassword } from './password-hash';

const FAST = { N: 1024, r: 8, p: 1 };

describe('password hashes', () => {
  it('are scrypt$N$r$p$salt$hash, salted, and verify the password only', async () => {
    const hash = await hashPassword('correct horse', FAST);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hashPassword('correct horse', FAST)).not.toBe(hash);
    const parsed = parsePasswordHash(hash, 'k');
    expect(await verifyPassword('correct horse', parsed)).toBe(true);
    expect(await verifyPassword('correct horsE', parsed)).toBe(false);
    expect(await verifyPassword('', parsed)).toBe(false);
  });

  it('use the default parameters, which Node can compute', async () => {
    const hash = await hashPassword('pw');
    expect(hash.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('pw', parsePasswordHash(hash, 'k'))).toBe(true);
  });

  it.each([
    ['scrypt$1024$8$1$c2FsdHNhbHQ', /not of the form/],
    ['scrypt$1000$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g', /power of two/],
    [`scrypt$${2 ** 22}$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g`, /power of two up to/],
    ['scrypt$1024$8$99$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g', /p 1-16/],
    ['scrypt$1024$8$1$c2E$aGFzaGhhc2hoYXNoaGFzaGhhc2g', /too short/],
  ])('%s is refused without showing it', (text, message) => {
    expect(() => parsePasswordHash(text, 'server.users.a.password')).toThrow(ConfigException);
    expect(() => parsePasswordHash(text, 'server.users.a.password')).toThrow(message);
    try {
      parsePasswordHash(text, 'server.users.a.password');
    } catch (error) {
      expect((error as Error).message).not.toContain(text);
    }
  });
});
