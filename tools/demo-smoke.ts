/**
 * The demo as a new user first runs it, for `npm run test:ci` on the oldest supported Node.js: `bin/sluice.js demo`
 * with the node flags of `npm run demo`, on a free port, until the node is UP and each example's printed query
 * answers with a record; then SIGINT, which must stop the demo (its broker too) with exit code 0. It fails on
 * anything the demo writes to stderr but its stop message: its warnings, errors and Node.js' process warnings.
 * Usage, after `npm run build`: `node dist/tools/demo-smoke.js`.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { DEMO_EXAMPLES } from '../examples';

const ROOT = path.join(__dirname, '..', '..');
/** The first run on a machine may fetch Apache Kafka's jars. */
const STARTED_WITHIN_MS = 300_000;
const ANSWERED_WITHIN_MS = 120_000;
const STOPPED_WITHIN_MS = 60_000;

/** The node flags `npm run demo` runs `bin/sluice.js demo` with. */
function demoNodeFlags(): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const flags = /\bnode((?: --\S+)*) bin\/sluice\.js demo\b/.exec(scripts.demo ?? '');
  if (!flags) throw new Error(`package.json's demo script does not run bin/sluice.js demo: ${scripts.demo}`);
  return flags[1]!.trim().split(' ').filter(Boolean);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true; fails after `withinMs`, or as soon as the demo has exited. */
async function until(what: string, withinMs: number, exited: () => boolean, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (await Promise.resolve().then(check).catch(() => false)) return;
    if (exited()) throw new Error(`the demo exited before ${what}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${withinMs / 1000} s`);
    await sleep(500);
  }
}

async function post(url: string, body: unknown): Promise<{ status: string; result: { total: number } }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as { status: string; result: { total: number } };
}

async function main(): Promise<void> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  console.log(`Demo smoke test on Node.js ${process.versions.node}: bin/sluice.js demo --port ${port}`);
  const child = spawn(process.execPath, [...demoNodeFlags(), path.join(ROOT, 'bin/sluice.js'), 'demo', '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exitCode: number | string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? signal ?? undefined;
      resolve();
    }),
  );
  const hasExited = () => exitCode !== undefined;

  const failures: string[] = [];
  let stderrBeforeStop = '';
  try {
    await until('banner', STARTED_WITHIN_MS, hasExited, () => stdout.includes('Sluice demo is running'));
    await until('UP health', ANSWERED_WITHIN_MS, hasExited, async () => ((await (await fetch(`${url}/health`)).json()) as { status: string }).status === 'UP');
    for (const example of DEMO_EXAMPLES) {
      const query = `${url}/api/v1/applications/${example.applicationId}/stores/${example.query.store}`;
      await until(`record from ${example.applicationId}'s store ${example.query.store}`, ANSWERED_WITHIN_MS, hasExited, async () => {
        const answer = await post(query, example.query.body);
        return answer.status === 'SUCCESS' && answer.result.total > 0;
      });
      console.log(`${example.applicationId}: ${example.query.store} answers`);
    }
  } catch (error) {
    failures.push((error as Error).message);
  } finally {
    stderrBeforeStop = stderr;
    child.kill('SIGINT');
    await Promise.race([exited, sleep(STOPPED_WITHIN_MS)]);
    if (!hasExited()) {
      failures.push(`the demo did not stop within ${STOPPED_WITHIN_MS / 1000} s of SIGINT`);
      child.kill('SIGKILL');
      await exited;
    } else if (exitCode !== 0) {
      failures.push(`the demo exited with ${exitCode}`);
    }
  }
  const unexpected = stderrBeforeStop + stderr.slice(stderrBeforeStop.length).replace(/^SIGINT: stopping \(again to force\)\n/, '');
  if (unexpected !== '') failures.push(`the demo wrote to stderr:\n${unexpected}`);
  if (failures.length > 0) {
    console.error(`Demo output:\n${stdout}`);
    throw new Error(`Demo smoke test failed on Node.js ${process.versions.node}:\n- ${failures.join('\n- ')}`);
  }
  console.log(`Demo smoke test passed on Node.js ${process.versions.node}`);
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
