/**
 * Sluice as a user outside this repository gets it: packed as npm publishes it (prepack builds it), installed from
 * the tarball into directories of their own (no link into the repository; npm's cache makes it fast and offline once
 * warm). `sluice init` writes an application there, whose own test passes and which `npm start` runs on the
 * integration broker; its counts are read through `npx sluice query` and, from ES module (node16 and bundler
 * resolution) and CommonJS projects that tsc compiles against the tarball, through `sluice/client`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SluiceClient } from '../../src/client';
import { findOnPath } from '../../src/host/broker/toolchain';
import { freePort } from '../../src/host/free-ports';
import { createTopics } from '../../src/streams/kafka';
import { bootstrapServers, KafkaTestClients, uniqueName } from '../support/kafka';
import { waitFor } from '../support/streams';

const REPO = path.resolve(__dirname, '../..');
/** What `npm pack` reads in the repository: the build's inputs and what `files` ships. */
const PACKED_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin', 'proto', 'src', 'examples', 'ui', 'tools', 'deploy/kubernetes/base'];
const SETUP_TIMEOUT_MS = 600_000;
const STEP_TIMEOUT_MS = 180_000;
const kubectl = findOnPath('kubectl');

interface Run {
  stdout: string;
  stderr: string;
}

class CommandFailed extends Error {
  constructor(
    readonly command: string,
    readonly code: number | string | null,
    readonly run: Run,
  ) {
    super(`${command} ended with ${code}:\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-4000)}`);
  }
}

/**
 * The environment of the user's shell: none of the npm settings of the `npm test` that may run this test (its
 * package, its prefix), nor any Sluice settings; the cache stays where it is.
 */
function userEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) => !/^(npm_|SLUICE_)/i.test(name) || /^npm_config_(cache|registry|userconfig)$/i.test(name));
  return { ...Object.fromEntries(kept), ...extra };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = userEnvironment()): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new CommandFailed(`${command} ${args.join(' ')} (in ${cwd})`, error.code ?? null, { stdout, stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

const npm = (args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv) => run('npm', args, cwd, env);
const install = (cwd: string) => npm(['install', '--prefer-offline', '--no-audit', '--no-fund'], cwd);

interface PackedFile {
  path: string;
  size: number;
}

/**
 * `npm pack` of a copy of the repository's inputs (the shared dist/ stays as it is): the tarball, what it holds, and
 * the copy, built as the tarball is.
 */
async function pack(work: string): Promise<{ tarball: string; files: PackedFile[]; size: number; source: string }> {
  const source = path.join(work, 'sluice');
  for (const input of PACKED_INPUTS) fs.cpSync(path.join(REPO, input), path.join(source, input), { recursive: true });
  // The build's tools; what the tarball holds is installed from it, not from here.
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  const { stdout } = await npm(['pack', '--json', '--pack-destination', work], source);
  // prepack's output comes first on the same stream.
  const [summary] = JSON.parse(stdout.slice(stdout.search(/^\[$/m))) as { filename: string; files: PackedFile[]; size: number }[];
  return { tarball: path.join(work, summary!.filename), files: summary!.files, size: summary!.size, source };
}

/** The same program in each project kind: both entry points, their types and their values, and the running node. */
const CONSUMER_PROGRAM = `import { Consumed, Materialized, Serdes, StreamsBuilder, TopologyTestDriver, type TopologyDefinition } from 'sluice';
import { SluiceClient } from 'sluice/client';

async function main(): Promise<void> {
  const builder = new StreamsBuilder();
  builder.stream('words', Consumed.with(Serdes.String(), Serdes.String())).groupByKey().count(Materialized.as('counts'));
  const definition: TopologyDefinition = { name: 'consumer', version: '1', build: () => builder.build() };
  const driver = new TopologyTestDriver(definition.build({}), { 'application.id': 'consumer' });
  driver.createInputTopic('words', Serdes.String(), Serdes.String()).pipeKeyValueList([{ key: 'kafka', value: 'a' }, { key: 'kafka', value: 'b' }]);
  const local: number | undefined = driver.getTimestampedKeyValueStore<string, number>('counts').get('kafka')?.value;
  await driver.close();
  const client = new SluiceClient({ url: process.env.SLUICE_URL! });
  try {
    const remote: number | undefined = (await client.store(process.env.APPLICATION_ID!, 'word-counts').keyValue<string, number>().get('kafka')).value;
    console.log(JSON.stringify({ local, remote }));
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** Each project kind: its package.json's module type and its compiler options. */
const CONSUMERS: Record<string, { type?: 'module'; compilerOptions: Record<string, string> }> = {
  'esm-node16': { type: 'module', compilerOptions: { module: 'node16', moduleResolution: 'node16' } },
  'esm-bundler': { type: 'module', compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } },
  'cjs-node10': { compilerOptions: { module: 'commonjs', moduleResolution: 'node10' } },
};

function writeConsumer(dir: string, kind: (typeof CONSUMERS)[string]): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, ...(kind.type && { type: kind.type }) }));
  const compilerOptions = { target: 'ES2022', strict: true, esModuleInterop: true, types: ['node'], outDir: 'dist', ...kind.compilerOptions };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['main.ts'] }));
  fs.writeFileSync(path.join(dir, 'main.ts'), CONSUMER_PROGRAM);
}

const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const kafka = new KafkaTestClients();
const name = uniqueName('adoption');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-adoption-'));
const app = path.join(work, 'apps', name);
const consumers = path.join(work, 'consumers');
let packed: Awaited<ReturnType<typeof pack>>;
let node: ChildProcess | undefined;
const compiled = new Map<string, Error | undefined>();
let url: string;

/** Compiles a consumer project; the error its test reports, if any (its test reads it, not the setup). */
async function compile(kind: string): Promise<Error | undefined> {
  const dir = path.join(consumers, kind);
  writeConsumer(dir, CONSUMERS[kind]!);
  return run(process.execPath, [path.join(consumers, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], dir).then(
    () => undefined,
    (error: Error) => error,
  );
}

beforeAll(async () => {
  packed = await pack(work);
  // The CLI as the tarball holds it (its own dependencies from the repository); the installed one's is tested below.
  await run(process.execPath, [path.join(packed.source, 'bin', 'sluice.js'), 'init', app, '--sluice', packed.tarball], work);
  fs.mkdirSync(consumers);
  const tools = { typescript: manifest.devDependencies.typescript, '@types/node': manifest.devDependencies['@types/node'] };
  fs.writeFileSync(path.join(consumers, 'package.json'), JSON.stringify({ private: true, dependencies: { sluice: `file:${packed.tarball}` }, devDependencies: tools }));
  // The installs wait mostly on the disk, the compilers on the processor: side by side.
  const consumersReady = install(consumers).then(async () => {
    const kinds = Object.keys(CONSUMERS);
    const errors = await Promise.all(kinds.map(compile));
    kinds.forEach((kind, i) => compiled.set(kind, errors[i]));
  });
  await Promise.all([install(app), consumersReady]);
}, SETUP_TIMEOUT_MS);

/** Stops npm start and the node it runs (its process group): SIGTERM, which closes the node, then SIGKILL after 20 s. */
async function stopGroup(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  if (alive()) process.kill(-pid, 'SIGKILL');
}

afterAll(async () => {
  if (node?.pid !== undefined) await stopGroup(node.pid);
  await kafka.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the package', () => {
  it('holds the built Sluice, its types, CLI, contract, console and licence, and no tests, benchmarks or test helpers', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'LICENSE',
        'README.md',
        'CHANGELOG.md',
        'bin/sluice.js',
        'proto/sluice.proto',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/src/index.mjs',
        'dist/src/index.d.mts',
        'dist/src/client/index.mjs',
        'dist/src/client/index.d.mts',
        'dist/src/host/cli.js',
        'dist/console/index.html',
        'deploy/kubernetes/base/kustomization.yaml',
        'src/host/init/templates/src/word-count.ts.tmpl',
      ]),
    );
    const outside = paths.filter((file) => !/^(package\.json|LICENSE|README\.md|CHANGELOG\.md|bin\/|proto\/|dist\/(src|examples|console)\/|deploy\/kubernetes\/base\/|src\/host\/(broker\/pom\.xml$|init\/templates\/))/.test(file));
    expect(outside).toEqual([]);
    expect(paths.filter((file) => /^dist\/.*(\.test\.|\/testing\/|\/differential\/|\.map$)/.test(file))).toEqual([]);
    expect(fs.readFileSync(path.join(REPO, 'LICENSE'), 'utf8')).toMatch(/^\s+Apache License\s+Version 2\.0, January 2004/);
  });
});

describe('an application of its own (sluice init)', () => {
  it('is written by the installed sluice, which refuses a directory that is not empty', async () => {
    const other = path.join(work, 'apps', 'other');
    const written = await npm(['exec', '--', 'sluice', 'init', other], consumers);
    expect(written.stdout).toContain(`Created other in ${other}: .dockerignore, .gitignore, Dockerfile, README.md,`);
    expect(JSON.parse(fs.readFileSync(path.join(other, 'package.json'), 'utf8'))).toMatchObject({ name: 'other', dependencies: { sluice: `^${manifest.version}` } });
    const refused = await npm(['exec', '--', 'sluice', 'init', other], consumers).then(
      () => undefined,
      (error: CommandFailed) => error,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.run.stderr).toContain(`sluice: Cannot create an application in ${other}: it holds .dockerignore, .gitignore, Dockerfile, and`);
  });

  it('passes its own test', async () => {
    const { stdout, stderr } = await npm(['test'], app);
    expect(`${stdout}${stderr}`).toMatch(/Tests:\s+2 passed, 2 total/);
    expect(stderr).not.toMatch(/ts-jest\[.*\] \(WARN\)/);
  }, STEP_TIMEOUT_MS);

  it('runs with npm start on Kafka, and `npx sluice query` reads its counts', async () => {
    const admin = await kafka.admin();
    await createTopics(admin, [
      { name: `${name}-lines`, partitions: 2 },
      { name: `${name}-word-counts`, partitions: 2 },
    ]);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const log = fs.openSync(path.join(work, 'node.log'), 'a');
    const env = userEnvironment({
      SLUICE_BOOTSTRAP_SERVERS: bootstrapServers().join(','),
      SLUICE_PORT: String(port),
      SLUICE_STATE_DIR: path.join(work, 'state'),
      SLUICE_LOG_LEVEL: 'warn',
    });
    // Its own process group: stopping npm stops the node it runs.
    node = spawn('npm', ['start'], { cwd: app, env, detached: true, stdio: ['ignore', log, log] });
    const client = new SluiceClient({ url });
    try {
      await waitFor(async () => (await client.instance(name).catch(() => undefined))?.state?.state === 'RUNNING', `${name} to run (log: ${path.join(work, 'node.log')})`, 120_000);
      const producer = await kafka.producer();
      await producer.send({ topic: `${name}-lines`, messages: ['Kafka Streams in TypeScript', 'kafka and sluice', 'KAFKA'].map((value) => ({ key: null, value })) });
      const counts = () => client.store(name, 'word-counts').keyValue<string, number>();
      await waitFor(async () => (await counts().get('kafka').catch(() => undefined))?.value === 3, 'the count of kafka to reach 3', 60_000);
    } finally {
      await client.close();
    }
    const query = await npm(['exec', '--', 'sluice', 'query', name, 'word-counts', 'get', 'key=kafka', '--url', url, '--output', 'json'], app);
    const answer = JSON.parse(query.stdout) as { status: string; result: { success: { records: unknown[] }[] } };
    expect([answer.status, answer.result.success.flatMap((part) => part.records)]).toEqual(['SUCCESS', [{ key: 'kafka', value: 3 }]]);
    const all = await npm(['exec', '--', 'sluice', 'query', name, 'word-counts', 'all', '--url', url], app);
    expect(all.stdout).toMatch(/^sluice\s+1$/m);
  }, STEP_TIMEOUT_MS);

  (kubectl ? it : it.skip)('renders as a Kustomize overlay of the base the package ships (kubectl kustomize)', async () => {
    const { stdout } = await run(kubectl!, ['kustomize', 'deploy/kubernetes'], app);
    expect(stdout).toContain(`image: ${name}:0.1.0`);
    expect(stdout).toContain(`module: /app/topologies/${name}`);
  });
});

describe.each(Object.keys(CONSUMERS))('the %s project', (kind) => {
  it('compiles against the package with tsc and runs: the runtime, the test driver and sluice/client', async () => {
    const dir = path.join(consumers, kind);
    const error = compiled.get(kind);
    if (error !== undefined) throw error;
    const { stdout } = await run(process.execPath, [path.join(dir, 'dist', 'main.js')], dir, userEnvironment({ SLUICE_URL: url, APPLICATION_ID: name }));
    expect(JSON.parse(stdout)).toEqual({ local: 2, remote: 3 });
  }, STEP_TIMEOUT_MS);
});
