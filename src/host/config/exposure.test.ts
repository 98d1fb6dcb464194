import { ConfigException } from '../../errors';
import type { UserSpec } from '../../server/auth/users';
import { isLoopback } from '../../server/loopback';
import { checkExposure, exposureNotice } from './exposure';

const server = (host: string, more: { users?: Record<string, UserSpec>; tokens?: { name: string; hash: string; role: 'viewer' }[]; allowUnauthenticated?: boolean } = {}) => ({
  host,
  port: 8080,
  allowUnauthenticated: false,
  ...more,
});

const ADMIN: UserSpec = { password: 'scrypt$...', role: 'operator' };

describe('exposure', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1'])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
    expect(() => checkExposure(server(host))).not.toThrow();
    expect(exposureNotice(server(host))).toEqual({ level: 'info', message: expect.stringContaining('Listening on loopback only') });
  });

  it.each(['0.0.0.0', '::', '[::]', '', '10.0.0.5', 'node-1', 'sluice-0.sluice-headless'])('%j without users is refused unless allowed', (host) => {
    expect(isLoopback(host)).toBe(false);
    expect(() => checkExposure(server(host))).toThrow(ConfigException);
    expect(() => checkExposure(server(host))).toThrow(/allowUnauthenticated: true .*--allow-unauthenticated/);
    expect(() => checkExposure(server(host, { users: {} }))).toThrow(ConfigException);
    expect(() => checkExposure(server(host, { allowUnauthenticated: true }))).not.toThrow();
    expect(exposureNotice(server(host, { allowUnauthenticated: true }))).toEqual({ level: 'warn', message: expect.stringContaining('without authentication') });
    expect(() => checkExposure(server(host, { users: { admin: ADMIN } }))).not.toThrow();
    expect(exposureNotice(server(host, { users: { admin: ADMIN } }))).toBeUndefined();
    expect(() => checkExposure(server(host, { tokens: [{ name: 'ci', hash: 'sha256$x', role: 'viewer' }] }))).not.toThrow();
  });
});
