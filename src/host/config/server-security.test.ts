import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeTestCertificates, type TestCertificates } from '../../streams/kafka/testing/certificates';
import { loadHostConfig } from './host-config';
import { loadServerTls } from './server-tls';

let dir: string;
let certificates: TestCertificates;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-server-security-'));
  certificates = makeTestCertificates(['127.0.0.1'], 'key-SECRET');
  fs.writeFileSync(path.join(dir, 'server.crt'), certificates.broker.chain);
  fs.writeFileSync(path.join(dir, 'server.key'), certificates.broker.key);
  fs.writeFileSync(path.join(dir, 'client.key'), certificates.client.key);
  fs.writeFileSync(path.join(dir, 'ca.crt'), certificates.ca);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function load(server: string, env: NodeJS.ProcessEnv = {}) {
  const file = path.join(dir, 'sluice.yaml');
  fs.writeFileSync(file, `server:\n${server}\nstreams: { bootstrap.servers: k:1 }\n`);
  return loadHostConfig({ config: file }, env);
}

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not throw');
};

describe('server security configuration', () => {
  it('takes users with a hash and a role, tokens, JWT settings (a JWKS file relative to the file), CORS origins and the budget of failed logins', () => {
    const config = load(
      [
        '  users: { alice: { password: "scrypt$...", role: operator } }',
        '  tokens: [{ name: ci, hash: "sha256$x", role: viewer }]',
        '  jwt: { jwks: keys/jwks.json, issuer: https://idp/, audience: [a, b], roleClaim: realm_access.roles }',
        '  cors: { origins: ["https://console.example.com"] }',
      ].join('\n'),
    );
    expect(config.server.users).toEqual({ alice: { password: 'scrypt$...', role: 'operator' } });
    expect(config.server.allowPlaintextPasswords).toBe(false);
    expect(config.server.tokens).toEqual([{ name: 'ci', hash: 'sha256$x', role: 'viewer' }]);
    expect(config.server.jwt).toEqual({ jwks: path.join(dir, 'keys/jwks.json'), issuer: 'https://idp/', audience: ['a', 'b'], roleClaim: 'realm_access.roles' });
    expect(load('  jwt: { jwks: "https://idp/jwks.json" }').server.jwt).toEqual({ jwks: 'https://idp/jwks.json' });
    expect(load('  jwt: { jwks: "https://idp/jwks.json", allowTokensWithoutExpiry: true }').server.jwt?.allowTokensWithoutExpiry).toBe(true);
    expect(config.server.cors).toEqual({ origins: ['https://console.example.com'] });
    expect(load('  failedLogins: { perAddress: 5, windowMs: 1000 }').server.failedLogins).toEqual({ perAddress: 5, windowMs: 1000 });
  });

  it.each([
    ['  users: { alice: secret }', "'server.users.alice' must be of type object"],
    ['  users: { alice: { password: x, role: admin } }', "'server.users.alice.role' must be one of viewer, operator"],
    ['  users: { alice: { password: x } }', "missing key 'server.users.alice.role'"],
    ['  cors: { origins: ["*"] }', 'server.cors.origins[0]'],
    ['  jwt: { jwks: j.json, allowTokensWithoutExpiry: "yes" }', "'server.jwt.allowTokensWithoutExpiry' must be of type boolean"],
    ['  failedLogins: { perAddress: 0 }', "'server.failedLogins.perAddress' must be >= 1"],
    ['  failedLogins: { perIp: 5 }', "unknown key 'server.failedLogins.perIp'"],
    ['  tls: { certificate: a.crt }', "missing key 'server.tls.key'"],
  ])('refuses %j in one line naming the key', (text, message) => {
    expect(errorOf(() => load(text))).toContain(message);
  });

  it('reads TLS from files relative to the configuration, or from PEM given by a reference', () => {
    const fromFiles = load('  tls: { certificate: server.crt, key: server.key, clientCa: ca.crt }').server.tls!;
    expect(fromFiles).toEqual({ certificate: path.join(dir, 'server.crt'), key: path.join(dir, 'server.key'), clientCa: path.join(dir, 'ca.crt') });
    const https = loadServerTls(fromFiles);
    expect(https).toEqual({ cert: Buffer.from(certificates.broker.chain), key: Buffer.from(certificates.broker.key), passphrase: undefined, ca: Buffer.from(certificates.ca), requestCert: true, rejectUnauthorized: true });
    const fromEnv = load('  tls: { certificate: "${env:CERT}", key: "${file:server.key}" }', { CERT: certificates.broker.chain }).server.tls!;
    // ${file:} drops the file's final line break.
    expect(loadServerTls(fromEnv)).toEqual({ cert: Buffer.from(certificates.broker.chain), key: Buffer.from(certificates.broker.key.trimEnd()), passphrase: undefined });
  });

  it('checks the material before anything listens, naming the key and file but never a key or password', () => {
    const tls = (more: object) => ({ certificate: path.join(dir, 'server.crt'), key: path.join(dir, 'server.key'), ...more });
    expect(errorOf(() => loadServerTls(tls({ key: path.join(dir, 'nope.key') })))).toMatch(/'server\.tls\.key' names the file .*nope\.key, which cannot be read \(ENOENT\)/);
    expect(errorOf(() => loadServerTls(tls({ certificate: path.join(dir, 'server.key') })))).toMatch(/server\.tls\.certificate .* does not hold a PEM certificate/);
    expect(errorOf(() => loadServerTls(tls({ key: path.join(dir, 'client.key') })))).toMatch(/does not hold an unencrypted PEM private key/);
    const wrongPassword = errorOf(() => loadServerTls(tls({ key: path.join(dir, 'client.key'), keyPassword: 'wrong-SECRET' })));
    expect(wrongPassword).toMatch(/that server\.tls\.keyPassword decrypts/);
    expect(errorOf(() => loadServerTls({ certificate: path.join(dir, 'server.crt'), key: path.join(dir, 'client.key'), keyPassword: 'key-SECRET' }))).toMatch(
      /is not the key of the certificate/,
    );
    const inline = errorOf(() => loadServerTls({ certificate: certificates.broker.chain, key: certificates.client.key, keyPassword: 'key-SECRET' }));
    expect(inline).not.toContain('BEGIN');
    for (const message of [wrongPassword, inline]) expect(message).not.toContain('SECRET');
  });
});
