/**
 * The console's routes: the page and its hashed assets with ETags, gzip and long caching, behind the API's
 * credentials like every route but the probes; /ui/model tells operators from viewers; Swagger UI at /docs. The
 * console as built loads its first view in under 60 KB gzipped.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildConsole } from '../../../ui/build';
import { buildServer, type ServerOptions } from '../app';
import { consoleModel } from '../schemas/console';
import { errorBody } from '../schemas/common';
import { FakeQueries, FakeRegistry } from '../testing/fake-instances';
import { expectMatchesSchema } from '../testing/schema-check';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const OPERATOR = basic('ops', 'ops-pass');
const VIEWER = basic('viewer', 'viewer-pass');

let dir: string;
let app: FastifyInstance;

async function start(options: Partial<ServerOptions> = {}): Promise<void> {
  await app?.close();
  app = await buildServer({ instances: new FakeRegistry('wc'), queries: new FakeQueries(), consoleDirs: [dir], ...options });
}

const withUsers: Partial<ServerOptions> = {
  access: {
    allowPlaintextPasswords: true,
    users: { ops: { password: 'ops-pass', role: 'operator' }, viewer: { password: 'viewer-pass', role: 'viewer' } },
  },
};

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-console-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="/ui/assets/console-ABC.js"></script>');
  fs.writeFileSync(path.join(dir, 'assets', 'console-ABC.js'), 'console.log("sluice");'.repeat(50));
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('serves the page revalidated by ETag and assets cached for good, gzipped when asked', async () => {
  await start();
  const page = await app.inject({ url: '/ui' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(page.headers['cache-control']).toBe('no-cache');
  expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  expect((await app.inject({ url: '/ui', headers: { 'if-none-match': String(page.headers.etag) } })).statusCode).toBe(304);
  expect((await app.inject({ url: '/ui/' })).statusCode).toBe(200);

  const asset = await app.inject({ url: '/ui/assets/console-ABC.js', headers: { 'accept-encoding': 'gzip, br' } });
  expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(asset.headers['content-encoding']).toBe('gzip');
  expect(asset.rawPayload.length).toBeLessThan(200);
  const plain = await app.inject({ url: '/ui/assets/console-ABC.js' });
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.body).toContain('console.log("sluice")');

  const missing = await app.inject({ url: '/ui/assets/nothing.js' });
  expect(missing.statusCode).toBe(404);
  expect(missing.json()).toEqual(expect.objectContaining({ exception: 'RouteNotFound', path: '/ui/assets/nothing.js' }));
  expect((await app.inject({ url: '/' })).headers.location).toBe('/ui/');
});

it('the built console: its first view (the page, its script and its stylesheet) comes to under 60 KB gzipped', async () => {
  const built = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-console-built-'));
  try {
    await buildConsole(path.resolve(__dirname, '..', '..', '..'), { out: built });
    await start({ consoleDirs: [built] });
    const gzip = { 'accept-encoding': 'gzip' };
    const page = await app.inject({ url: '/ui/', headers: gzip });
    const assets = [...gunzipSync(page.rawPayload).toString('utf8').matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toEqual([expect.stringMatching(/\.css$/), expect.stringMatching(/\.js$/)]);
    const sizes: Record<string, number> = { '/ui/': page.rawPayload.length };
    for (const asset of assets) {
      const answer = await app.inject({ url: asset, headers: gzip });
      expect([asset, answer.statusCode, answer.headers['content-encoding']]).toEqual([asset, 200, 'gzip']);
      sizes[asset] = answer.rawPayload.length;
    }
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
    process.stdout.write(`The console's first view, gzipped as the node sends it: ${(total / 1024).toFixed(1)} KB (${JSON.stringify(sizes)})\n`);
    expect(total).toBeLessThan(60 * 1024);
  } finally {
    fs.rmSync(built, { recursive: true, force: true });
  }
});

it('without a built console: 503 ConsoleNotBuilt in the error body', async () => {
  await start({ consoleDirs: [path.join(dir, 'nowhere')] });
  const answer = await app.inject({ url: '/ui' });
  expect(answer.statusCode).toBe(503);
  expectMatchesSchema(errorBody, answer.json());
  expect(answer.json()).toEqual(expect.objectContaining({ exception: 'ConsoleNotBuilt' }));
});

it('with users: every console route takes credentials; the model tells an operator from a viewer', async () => {
  await start(withUsers);
  for (const url of ['/', '/ui', '/ui/assets/console-ABC.js', '/ui/model', '/docs', '/docs/json']) {
    const answer = await app.inject({ url });
    expect([url, answer.statusCode]).toEqual([url, 401]);
  }
  const operator = await app.inject({ url: '/ui/model', headers: { authorization: OPERATOR } });
  expectMatchesSchema(consoleModel, operator.json());
  expect(operator.json()).toEqual(expect.objectContaining({ user: 'ops', role: 'operator', canChange: true, headless: false }));
  expect(operator.json().storeTypes.map((t: { type: string }) => t.type)).toContain('key_value');
  expect(operator.json().applications).toEqual([{ id: 'wc', stores: [expect.objectContaining({ name: expect.any(String) })] }]);
  const viewer = await app.inject({ url: '/ui/model', headers: { authorization: VIEWER } });
  expect(viewer.json()).toEqual(expect.objectContaining({ user: 'viewer', role: 'viewer', canChange: false }));
  expect((await app.inject({ url: '/ui', headers: { authorization: VIEWER } })).statusCode).toBe(200);
});

it('open API: anyone may change instances unless the node is headless', async () => {
  await start();
  expect((await app.inject({ url: '/ui/model' })).json()).toEqual(expect.objectContaining({ user: null, role: null, canChange: true }));
  await start({ access: { headless: true } });
  expect((await app.inject({ url: '/ui/model' })).json()).toEqual(expect.objectContaining({ headless: true, canChange: false }));
});

it('Swagger UI at /docs over the same OpenAPI document', async () => {
  await start();
  const docs = await app.inject({ url: '/docs/' });
  expect(docs.statusCode).toBe(200);
  expect(docs.body).toContain('swagger-ui');
  for (const url of ['/docs', '/docs/', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-initializer.js', '/docs/json']) {
    const answer = await app.inject({ url });
    expect([url, answer.statusCode < 400]).toEqual([url, true]);
    expect([url, answer.headers['content-security-policy']]).toEqual([url, expect.stringContaining("default-src 'self'; script-src 'self'; style-src 'self'")]);
  }
  // The page's scripts and styles are files of its own, which 'self' lets run; the only inline style is the one that
  // swagger-ui's scripts put in the DOM (its logo's), allowed by its hash.
  expect(docs.body).not.toMatch(/<script(?![^>]*\ssrc=)|<style|\sstyle=|\son[a-z]+=/i);
  const policy = String(docs.headers['content-security-policy']);
  const staticDir = path.join(path.dirname(require.resolve('@fastify/swagger-ui/package.json')), 'static');
  const inlineStyles = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js'].flatMap((file) =>
    [...fs.readFileSync(path.join(staticDir, file), 'utf8').matchAll(/createElement\("style",null,("(?:[^"\\]|\\.)*")\)/g)].map((match) => JSON.parse(match[1]!) as string),
  );
  expect(inlineStyles.length).toBeGreaterThan(0);
  for (const style of inlineStyles) expect(policy).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
  const json = await app.inject({ url: '/docs/json' });
  expect(json.json().info.title).toBe('Sluice management API');
  const paths = Object.keys((await app.inject({ url: '/openapi.json' })).json().paths);
  expect(paths).toEqual(expect.arrayContaining(['/ui', '/ui/model', '/version', '/api/v1/environments']));
  expect(paths.some((p) => p.startsWith('/docs') || p.startsWith('/ui/assets'))).toBe(false);
});

it("Swagger UI's files compressed when the browser takes gzip, and kept a day; the API's answers not compressed", async () => {
  await start();
  const plain = await app.inject({ url: '/docs/static/swagger-ui-bundle.js' });
  const zipped = await app.inject({ url: '/docs/static/swagger-ui-bundle.js', headers: { 'accept-encoding': 'gzip' } });
  expect(zipped.statusCode).toBe(200);
  expect(zipped.headers['content-encoding']).toBe('gzip');
  expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
  expect(gunzipSync(zipped.rawPayload).equals(plain.rawPayload)).toBe(true);
  expect(zipped.headers['cache-control']).toBe('public, max-age=86400');
  const spec = await app.inject({ url: '/docs/json', headers: { 'accept-encoding': 'gzip' } });
  expect(spec.headers['content-encoding']).toBe('gzip');
  expect(JSON.parse(gunzipSync(spec.rawPayload).toString('utf8')).info.title).toBe('Sluice management API');
  const api = await app.inject({ url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
  expect(api.headers['content-encoding']).toBeUndefined();
});
