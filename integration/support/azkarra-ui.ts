/**
 * Azkarra Streams 0.8.0's own web UI as one more client of a Sluice node. The UI is a Vue app inside the
 * azkarra-server jar (io/streamthoughts/azkarra/ui: index.html and static/), which Maven fetches once into
 * `$SLUICE_CACHE_DIR/azkarra-ui-0.8.0/libs`. A small test-only server plays the part of Azkarra's: it serves those
 * assets where Azkarra serves them (`/` and `/ui` for the page, `/static/*`) and forwards every other request (`/api/v1/*`,
 * `/version`, `/info`, `/health`) to the Sluice node, so the UI calls Sluice as it would call Azkarra, from one origin.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { cachedLibs, ensureMavenLibs, sluiceCacheDir } from '../../src/host/broker/jars';
import { findJava } from '../../src/host/broker/toolchain';

export const AZKARRA_UI_VERSION = '0.8.0';

/** Set by the global setup when the jar is neither cached nor fetchable: the Azkarra UI test is skipped with it. */
export const AZKARRA_UI_ERROR_ENV = 'SLUICE_TEST_AZKARRA_UI_ERROR';

const JAR = `azkarra-server-${AZKARRA_UI_VERSION}.jar`;
const UI_PREFIX = 'io/streamthoughts/azkarra/ui';

function libsDir(): string {
  return path.join(sluiceCacheDir(), `azkarra-ui-${AZKARRA_UI_VERSION}`, 'libs');
}

/** Fetches the jar when it is not cached; answers why it is unavailable, or undefined once it is there. */
export async function ensureAzkarraUi(log: (line: string) => void): Promise<string | undefined> {
  try {
    await ensureMavenLibs(
      { description: `Azkarra Streams ${AZKARRA_UI_VERSION} web UI`, pomCandidates: [path.join(__dirname, 'azkarra-ui', 'pom.xml')], libsDir: libsDir() },
      log,
    );
    return undefined;
  } catch (error) {
    return `azkarra-server ${AZKARRA_UI_VERSION} is not cached in ${libsDir()} and Maven could not fetch it: ${(error as Error).message}`;
  }
}

export interface AzkarraUi {
  url: string;
  /** Requests the UI made that the Sluice node answered with an error status, as `METHOD path → status`. */
  failedCalls: string[];
  stop(): Promise<void>;
}

/** Unpacks the UI from the cached jar and serves it in front of the node at `sluiceUrl`. */
export async function startAzkarraUi(sluiceUrl: string): Promise<AzkarraUi> {
  const libs = cachedLibs(libsDir());
  if (libs === undefined) throw new Error(`No cached ${JAR} in ${libsDir()}: the integration global setup fetches it`);
  const java = await findJava();
  if (java === undefined) throw new Error('No Java runtime found (JAVA_HOME or java on PATH) for its jar tool');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-azkarra-ui-'));
  await promisify(execFile)(path.join(path.dirname(java.command), 'jar'), ['xf', path.join(libs, JAR), UI_PREFIX], { cwd: dir });
  const root = path.join(dir, UI_PREFIX);
  const upstream = new URL(sluiceUrl);
  const failedCalls: string[] = [];

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://ui');
    const asset = request.method === 'GET' ? assetFile(root, url.pathname) : undefined;
    if (asset === null) {
      response.writeHead(404).end();
      return;
    }
    if (asset !== undefined) {
      response.writeHead(200, { 'content-type': contentType(asset) });
      fs.createReadStream(asset).pipe(response);
      return;
    }
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstream.host } },
      (answer) => {
        if ((answer.statusCode ?? 0) >= 400) failedCalls.push(`${request.method} ${url.pathname} → ${answer.statusCode}`);
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', (error) => response.destroy(error));
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    failedCalls,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The page for Azkarra's UI paths, a file under static/ for the assets, null for a missing asset (answered 404 here:
 * the UI's own index.html links a static/css/main.css that its jar lacks), else undefined (forwarded to the node).
 */
function assetFile(root: string, pathname: string): string | null | undefined {
  if (pathname === '/' || pathname === '/ui' || pathname === '/ui/') return path.join(root, 'index.html');
  if (!pathname.startsWith('/static/')) return undefined;
  const file = path.resolve(root, `.${decodeURIComponent(pathname)}`);
  return file.startsWith(`${root}${path.sep}`) && fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
};

function contentType(file: string): string {
  return TYPES[path.extname(file)] ?? 'application/octet-stream';
}
