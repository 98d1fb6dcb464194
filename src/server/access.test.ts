import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload, type KeyLike } from 'jose';
import pino from 'pino';
import { buildServer, type ServerOptions } from './app';
import { hashApiToken, newApiToken } from './auth/api-tokens';
import * as passwordHash from './auth/password-hash';
import { hashPassword } from './auth/password-hash';
import { errorBody } from './schemas/common';
import { FakeQueries, FakeRegistry } from './testing/fake-instances';
import { expectMatchesSchema } from './testing/schema-check';

const FAST = { N: 1024, r: 8, p: 1 };
const I = '/api/v1/streams/wc';
const OPERATOR_TOKEN = newApiToken();
const VIEWER_TOKEN = newApiToken();

let app: FastifyInstance;
let logged: string[];
let dir: string;
let signingKey: KeyLike;
let otherKey: KeyLike;
let access: ServerOptions['access'];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-access-'));
  const signing = await generateKeyPair('ES256');
  signingKey = signing.privateKey;
  otherKey = (await generateKeyPair('ES256')).privateKey;
  const unrelated = await generateKeyPair('ES256');
  // The JWKS holds the signing key's public half, and an unrelated key as real sets hold several.
  const keys = [
    { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256' },
    { ...(await exportJWK(unrelated.publicKey)), kid: 'k0', alg: 'ES256' },
  ];
  fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys }));
  access = {
    users: {
      olga: { password: await hashPassword('operator-pw', FAST), role: 'operator' },
      vic: { password: await hashPassword('viewer-pw', FAST), role: 'viewer' },
    },
    tokens: [
      { name: 'ci', hash: hashApiToken(OPERATOR_TOKEN), role: 'operator' },
      { name: 'dashboard', hash: hashApiToken(VIEWER_TOKEN), role: 'viewer' },
    ],
    jwt: { jwks: path.join(dir, 'jwks.json'), issuer: 'https://idp.test/', audience: 'sluice', roleClaim: 'realm_access.roles' },
  };
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(options: Partial<ServerOptions> = {}): Promise<void> {
  await app?.close();
  logged = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (logged.push(String(chunk)), done()) });
  app = await buildServer({ instances: new FakeRegistry('wc'), queries: new FakeQueries(), logger: pino({ level: 'info' }, sink), access, ...options });
}

/** A JWT of the test's identity provider; `expiresIn: null` leaves `exp` out. */
function jwt(claims: JWTPayload, options: { key?: KeyLike; kid?: string; expiresIn?: string | null; issuer?: string; audience?: string } = {}): Promise<string> {
  const token = new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'k1' })
    .setSubject('jwt-user')
    .setIssuer(options.issuer ?? 'https://idp.test/')
    .setAudience(options.audience ?? 'sluice')
    .setIssuedAt();
  if (options.expiresIn !== null) token.setExpirationTime(options.expiresIn ?? '5m');
  return token.sign(options.key ?? signingKey);
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function status(method: InjectOptions['method'], url: string, headers: Record<string, string> = {}, payload?: object, remoteAddress?: string): Promise<number> {
  return (await app.inject({ method, url, headers, payload, remoteAddress })).statusCode;
}

describe('authentication and roles', () => {
  beforeAll(() => start());

  it('answers 401 with the documented body and one challenge per scheme, without or with wrong credentials', async () => {
    for (const headers of [{}, basic('olga', 'wrong'), basic('nobody', 'operator-pw'), bearer('sluice_wrong'), bearer('not.a.jwt'), { authorization: 'Digest x' }]) {
      const response = await app.inject({ method: 'GET', url: I, headers });
      expect(response.statusCode).toBe(401);
      const body = response.json() as Record<string, unknown>;
      expectMatchesSchema(errorBody, body);
      expect(body).toEqual({ error_code: 401, exception: 'Unauthorized', message: 'Missing or wrong credentials', path: I });
      expect(response.headers['www-authenticate']).toEqual(['Basic realm="sluice", charset="UTF-8"', 'Bearer realm="sluice"']);
    }
  });

  it('lets a viewer read and query, and answers 403 to its changes', async () => {
    for (const viewer of [basic('vic', 'viewer-pw'), bearer(VIEWER_TOKEN), bearer(await jwt({ realm_access: { roles: ['viewer'] } }))]) {
      expect(await status('GET', I, viewer)).toBe(200);
      expect(await status('POST', '/api/v1/applications/wc/stores/counts', viewer, { type: 'key_value', query: { all: {} } })).not.toBe(403);
      for (const [method, url] of [['POST', `${I}/restart`], ['DELETE', `${I}/stop`], ['POST', `${I}/stop`], ['DELETE', I], ['POST', '/api/v1/streams']] as const) {
        const response = await app.inject({ method, url, headers: viewer, payload: method === 'POST' ? {} : undefined });
        expect([method, url, response.statusCode]).toEqual([method, url, 403]);
        expect(response.json()).toEqual(expect.objectContaining({ error_code: 403, exception: 'Forbidden', message: expect.stringContaining('operator role') }));
      }
    }
  });

  it('lets an operator change instances', async () => {
    for (const operator of [basic('olga', 'operator-pw'), bearer(OPERATOR_TOKEN), bearer(await jwt({ realm_access: { roles: ['viewer', 'operator'] } }))]) {
      expect(await status('GET', I, operator)).toBe(200);
      expect(await status('POST', `${I}/restart`, operator)).toBe(200);
    }
  });

  it('keeps the probes open', async () => {
    for (const url of ['/health', '/health/liveness', '/health/readiness']) expect(await status('GET', url)).toBe(200);
  });

  it('refuses JWTs of another key, issuer or audience, expired ones, and answers 403 to one that grants no role', async () => {
    const refused = [
      await jwt({ realm_access: { roles: ['operator'] } }, { key: otherKey }),
      await jwt({ realm_access: { roles: ['operator'] } }, { issuer: 'https://evil.test/' }),
      await jwt({ realm_access: { roles: ['operator'] } }, { audience: 'other' }),
      await jwt({ realm_access: { roles: ['operator'] } }, { expiresIn: '-1m' }),
      await jwt({ realm_access: { roles: ['operator'] } }, { kid: 'unknown' }),
    ];
    for (const token of refused) expect(await status('GET', I, bearer(token))).toBe(401);
    for (const claims of [{}, { realm_access: { roles: ['admin'] } }, { role: 'operator' }, { realm_access: 'operator' }]) {
      const response = await app.inject({ method: 'GET', url: I, headers: bearer(await jwt(claims)) });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(expect.objectContaining({ exception: 'Forbidden', message: expect.stringContaining('grants no role') }));
    }
  });

  it('refuses a JWT without an expiry (exp) with 401, unless server.jwt.allowTokensWithoutExpiry', async () => {
    await start();
    const token = await jwt({ realm_access: { roles: ['viewer'] } }, { expiresIn: null });
    const refused = await app.inject({ method: 'GET', url: I, headers: bearer(token) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ error_code: 401, exception: 'Unauthorized', message: 'Missing or wrong credentials', path: I });
    expect(refused.headers['www-authenticate']).toEqual(['Basic realm="sluice", charset="UTF-8"', 'Bearer realm="sluice"']);
    const failure = logged.map((line) => JSON.parse(line) as { failedLogin?: { reason: string } }).find((line) => line.failedLogin)?.failedLogin;
    expect(failure?.reason).toBe('invalid JWT (ERR_JWT_CLAIM_VALIDATION_FAILED: exp missing)');
    await start({ access: { ...access, jwt: { ...access!.jwt!, allowTokensWithoutExpiry: true } } });
    expect(await status('GET', I, bearer(token))).toBe(200);
  });

  it('logs failed logins without the secret, at a bounded rate', async () => {
    await start();
    for (let i = 0; i < 30; i++) await status('GET', I, basic('olga', `guess-${i}-SECRET`));
    await status('GET', I, bearer(`${OPERATOR_TOKEN}x`));
    const lines = logged.map((line) => JSON.parse(line) as { msg: string; failedLogin?: Record<string, unknown> });
    const failures = lines.filter((line) => line.msg === 'Failed login');
    expect(failures).toHaveLength(20);
    expect(failures[0]!.failedLogin).toEqual({ scheme: 'basic', reason: 'wrong password', user: 'olga', ip: '127.0.0.1', method: 'GET', path: I });
    expect(logged.join('')).not.toMatch(/SECRET|guess|sluice_/);
  });

  it('refuses plain-text passwords unless allowed, naming the key, never the password', async () => {
    await expect(start({ access: { users: { dev: { password: 'plain-SECRET', role: 'operator' } } } })).rejects.toThrow(
      /server\.users\.dev\.password is not a password hash.*server\.allowPlaintextPasswords/,
    );
    await expect(start({ access: { users: { dev: { password: 'plain-SECRET', role: 'operator' } } } })).rejects.not.toThrow(/plain-SECRET/);
    await start({ access: { users: { dev: { password: 'plain-SECRET', role: 'operator' } }, allowPlaintextPasswords: true } });
    expect(await status('GET', I, basic('dev', 'plain-SECRET'))).toBe(200);
    expect(logged.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContainEqual(expect.stringContaining('plain-text passwords'));
  });

  it('headless refuses changes to operators too', async () => {
    await start({ access: { ...access, headless: true } });
    const response = await app.inject({ method: 'POST', url: `${I}/restart`, headers: basic('olga', 'operator-pw') });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual(expect.objectContaining({ message: expect.stringContaining('headless') }));
  });
});

describe('failed logins', () => {
  let clock: number;
  beforeEach(() => {
    clock = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => clock);
  });
  afterEach(() => jest.restoreAllMocks());

  const tooMany = (response: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, retryAfterS: number) => {
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe(String(retryAfterS));
    expect(response.headers['www-authenticate']).toBeUndefined();
    expectMatchesSchema(errorBody, response.json());
    expect(response.json()).toEqual({ error_code: 429, exception: 'TooManyFailedLogins', message: expect.stringContaining(`${retryAfterS} s`), path: I });
  };

  it('past 10 a minute from an address, answers 429 with Retry-After without checking the password; tokens still pass; after the window logins work again', async () => {
    await start();
    const scrypt = jest.spyOn(passwordHash, 'verifyPassword');
    const statuses: number[] = [];
    for (let i = 1; i <= 16; i++) statuses.push(await status('GET', I, basic(i % 2 ? 'olga' : 'nobody', `guess-${i}`)));
    expect(statuses).toEqual([...Array<number>(10).fill(401), ...Array<number>(6).fill(429)]);
    expect(scrypt).toHaveBeenCalledTimes(10);
    clock += 20_000;
    tooMany(await app.inject({ method: 'GET', url: I, headers: basic('olga', 'guess-17') }), 40);
    // The right password is not even tried: its answer would tell a guess from a miss.
    tooMany(await app.inject({ method: 'GET', url: I, headers: basic('olga', 'operator-pw') }), 40);
    expect(scrypt).toHaveBeenCalledTimes(10);
    for (const token of [OPERATOR_TOKEN, await jwt({ realm_access: { roles: ['viewer'] } })]) expect(await status('GET', I, bearer(token))).toBe(200);
    expect(await status('GET', I, bearer('sluice_wrong'))).toBe(401);
    expect(await status('GET', I, basic('vic', 'viewer-pw'), undefined, '10.0.0.2')).toBe(200);

    clock += 40_000;
    expect(await status('GET', I, basic('olga', 'operator-pw'))).toBe(200);
    expect(await status('GET', I, basic('olga', 'guess-18'))).toBe(401);
    const logged429 = logged.map((line) => JSON.parse(line) as { failedLogin?: { reason: string } }).filter((line) => line.failedLogin?.reason === 'too many failed logins, not checked');
    expect(logged429.length).toBeGreaterThan(0);
  });

  it('past 20 a minute as a user, from any address, refuses that user only; logins that pass are not counted', async () => {
    await start();
    for (let i = 0; i < 30; i++) expect(await status('GET', I, basic('vic', 'viewer-pw'))).toBe(200);
    for (let i = 0; i < 20; i++) expect(await status('GET', I, basic('olga', `guess-${i}`), undefined, `10.0.${i % 4}.1`)).toBe(401);
    tooMany(await app.inject({ method: 'GET', url: I, headers: basic('olga', 'operator-pw'), remoteAddress: '10.9.9.9' }), 60);
    expect(await status('GET', I, basic('vic', 'viewer-pw'), undefined, '10.9.9.9')).toBe(200);
  });

  it('counts a check from before it runs: of many sent at once, only the budget is tried', async () => {
    await start();
    const checks = jest.spyOn(passwordHash, 'verifyPassword');
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => status('GET', I, basic('olga', `guess-${i}`))));
    expect(statuses.filter((code) => code === 401)).toHaveLength(10);
    expect(statuses.filter((code) => code === 429)).toHaveLength(20);
    expect(checks).toHaveBeenCalledTimes(10);
  });

  it('takes its budget and window from server.failedLogins', async () => {
    await start({ access: { ...access, failedLogins: { perAddress: 2, windowMs: 5000 } } });
    expect(await status('GET', I, basic('olga', 'a'))).toBe(401);
    expect(await status('GET', I, basic('olga', 'b'))).toBe(401);
    tooMany(await app.inject({ method: 'GET', url: I, headers: basic('olga', 'c') }), 5);
    clock += 5000;
    expect(await status('GET', I, basic('olga', 'operator-pw'))).toBe(200);
  });
});

describe('CORS', () => {
  beforeAll(() => start({ cors: { origins: ['https://console.test'] } }));

  it('answers preflights of listed origins before access control, and nothing to others', async () => {
    const preflight = (origin: string) =>
      app.inject({ method: 'OPTIONS', url: I, headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
    const allowed = await preflight('https://console.test');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://console.test');
    expect(String(allowed.headers['access-control-allow-headers'])).toContain('authorization');
    const other = await preflight('https://evil.test');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('puts the headers on answers to listed origins, a 401 included', async () => {
    const denied = await app.inject({ method: 'GET', url: I, headers: { origin: 'https://console.test' } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('https://console.test');
    const ok = await app.inject({ method: 'GET', url: I, headers: { origin: 'https://console.test', ...basic('vic', 'viewer-pw') } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://console.test');
    const other = await app.inject({ method: 'GET', url: I, headers: { origin: 'https://evil.test', ...basic('vic', 'viewer-pw') } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers an unknown path 404 with the error body, to GET and OPTIONS, a preflight included', async () => {
    const preflight = { 'access-control-request-method': 'GET' };
    for (const [method, headers] of [
      ['GET', {}],
      ['GET', { origin: 'https://console.test' }],
      ['OPTIONS', {}],
      ['OPTIONS', { origin: 'https://console.test' }],
      ['OPTIONS', { origin: 'https://console.test', ...preflight }],
      ['OPTIONS', { origin: 'https://evil.test', ...preflight }],
    ] as const) {
      const response = await app.inject({ method, url: '/api/v1/nothing', headers: { ...headers, ...basic('vic', 'viewer-pw') } });
      expect([method, headers, response.statusCode, response.headers['content-type']]).toEqual([method, headers, 404, 'application/json; charset=utf-8']);
      expect(response.json()).toEqual({ error_code: 404, exception: 'RouteNotFound', message: `No route ${method} /api/v1/nothing`, path: '/api/v1/nothing' });
    }
  });

  it('answers an OPTIONS that is no preflight as a node without CORS does', async () => {
    const requests: { url: string; headers: Record<string, string> }[] = [
      { url: I, headers: { origin: 'https://console.test' } },
      { url: I, headers: {} },
      { url: I, headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' } },
      { url: '/health', headers: { origin: 'https://console.test' } },
      { url: '/api/v1/nothing', headers: { origin: 'https://console.test' } },
    ];
    const answers = async () => {
      const answered = [];
      for (const { url, headers } of requests) {
        for (const credentials of [{}, basic('vic', 'viewer-pw')]) {
          const response = await app.inject({ method: 'OPTIONS', url, headers: { ...headers, ...credentials } });
          answered.push({ url, headers, status: response.statusCode, type: response.headers['content-type'], allow: response.headers.allow, body: response.body });
        }
      }
      return answered;
    };
    const withCors = await answers();
    await start();
    const withoutCors = await answers();
    await start({ cors: { origins: ['https://console.test'] } });
    expect(withCors).toEqual(withoutCors);
    expect(withCors[0]).toEqual(expect.objectContaining({ status: 401 }));
    expect(withCors[1]).toEqual(expect.objectContaining({ status: 405, allow: 'DELETE, GET, HEAD', body: expect.stringContaining('"exception":"MethodNotAllowed"') }));
  });
});
