/**
 * deploy/Dockerfile, read as Docker would build it (there is no Docker engine to build it here): every file it
 * copies is in the build context, the entrypoint is the CLI that `npm run build` compiles, the configuration it
 * ships is valid, its ports and volume are the ones that configuration uses, and what the runtime loads needs no
 * development dependency (the runtime stage has only production ones).
 */
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkExposure } from '../../src/host/config/exposure';
import { loadHostConfig } from '../../src/host/config/host-config';
import { program } from '../../src/host/cli';
import { inBuildContext, readDockerfile, REPO, sourceInRepository } from './support/image';
import { checkInstances } from './support/sluice-config';

const stages = readDockerfile();
const build = stages[0]!;
const runtime = stages[stages.length - 1]!;
const [node, script, command, configFlag, configPath] = runtime.entrypoint ?? [];

/** Bare module names that the files reachable from `entries` load statically (type-only imports are erased). */
function packagesLoaded(entries: string[]): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const resolve = (base: string): string => {
    const candidate = [base, `${base}.ts`, `${base}.js`, path.join(base, 'index.ts'), path.join(base, 'index.js')].find(
      (file) => fs.existsSync(file) && fs.statSync(file).isFile(),
    );
    if (candidate === undefined) throw new Error(`cannot resolve ${base}`);
    return candidate;
  };
  const pending = entries.map(resolve);
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
    ];
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) pending.push(resolve(path.resolve(path.dirname(file), specifier)));
      else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        packages.set(name, path.relative(REPO, file));
      }
    }
  }
  return packages;
}

const sourceOf = (imagePath: string) => sourceInRepository(imagePath, stages);

describe('deploy/Dockerfile', () => {
  it('builds in a full Node image with every dependency, then runs on a slim one with the production ones only', () => {
    expect(stages).toHaveLength(2);
    expect(build.name).toBe('build');
    expect(build.base).toBe('node:${NODE_VERSION}-bookworm');
    expect(runtime.base).toBe('node:${NODE_VERSION}-bookworm-slim');
    const steps = build.runs.join('\n');
    expect(steps).toMatch(/^npm ci$/m);
    expect(steps).toMatch(/npm run build && npm prune --omit=dev/);
    expect(runtime.copies.filter((copy) => copy.from !== undefined).map((copy) => copy.sources[0])).toEqual(['/app/package.json', '/app/node_modules', '/app/dist']);
  });

  it("is built on the Node.js CI runs the whole suite on, the newest of package.json's engines, as is an application's image", () => {
    const ci = Object.fromEntries([...fs.readFileSync(path.join(REPO, '.ci/node-versions'), 'utf8').matchAll(/^(\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(fs.readFileSync(path.join(REPO, 'deploy/Dockerfile'), 'utf8')).toMatch(new RegExp(`^ARG NODE_VERSION=${ci.NODE_IMAGE}$`, 'm'));
    expect(fs.readFileSync(path.join(REPO, 'src/host/init/templates/Dockerfile.tmpl'), 'utf8')).toMatch(new RegExp(`^ARG NODE_VERSION=${ci.NODE_IMAGE}$`, 'm'));
    // engines: one ^major.minor.patch range per supported release line, oldest first.
    const { engines } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
    const lines = engines.node.split('||').map((range) => /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(range)!.slice(1).map(Number));
    const [major, minor, patch] = ci.NODE_OLDEST!.split('.').map(Number);
    expect(lines[0]![0]).toBe(major);
    expect(lines[0]![1]! * 1000 + lines[0]![2]!).toBeLessThanOrEqual(minor! * 1000 + patch!);
    expect(lines[lines.length - 1]![0]).toBe(Number(ci.NODE_IMAGE!.split('.')[0]));
  });

  it('copies only files that exist and that .dockerignore keeps in the build context', () => {
    const copied = stages.flatMap((stage) => stage.copies.filter((copy) => copy.from === undefined).flatMap((copy) => copy.sources));
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) {
      expect({ source, exists: fs.existsSync(path.join(REPO, source)), inContext: inBuildContext(source) }).toEqual({ source, exists: true, inContext: true });
    }
    // The tests stay out of the context; the build compiles none anyway.
    expect(inBuildContext('src/host/host.test.ts')).toBe(false);
    expect(inBuildContext('node_modules/lmdb/package.json')).toBe(false);
  });

  it('runs `sluice start --config <file>`: bin/sluice.js, which loads the CLI that npm run build compiles from src/host/cli.ts', () => {
    expect([node, command, configFlag]).toEqual(['node', 'start', '--config']);
    expect(sourceOf(script!)).toBe(path.join(REPO, 'bin/sluice.js'));
    // bin/sluice.js loads path.join(__dirname, ...segments).
    const launcher = fs.readFileSync(path.join(REPO, 'bin/sluice.js'), 'utf8');
    const segments = /path\.join\(__dirname,\s*([^)]*)\)/.exec(launcher)![1]!.split(',').map((segment) => JSON.parse(segment.trim().replace(/'/g, '"')) as string);
    const cli = path.posix.join(path.posix.dirname(script!), ...segments);
    expect(cli).toBe('/app/dist/src/host/cli.js');
    expect(sourceOf(cli)).toBe(path.join(REPO, 'src/host/cli.ts'));
    const start = program().commands.find((c) => c.name() === 'start')!;
    expect(start.options.map((option) => option.long)).toContain('--config');
  });

  it('ships a valid configuration whose ports it exposes and whose state directory is its volume', () => {
    const shipped = sourceOf(configPath!)!;
    expect(shipped).toBe(path.join(REPO, 'deploy/kubernetes/base/sluice.yaml'));
    const config = loadHostConfig({ config: shipped }, { SLUICE_BOOTSTRAP_SERVERS: 'kafka:9092' });
    expect(runtime.expose).toEqual([config.server.port, config.server.grpcPort]);
    expect(runtime.volumes).toEqual([config.streams['state.dir']]);
    expect(checkInstances(config)).toEqual(['word-count']);
    // `docker run -p` reaches it only on all interfaces, which Sluice serves without users only when told to.
    expect(() => checkExposure(config.server)).not.toThrow();
  });

  it('runs as a non-root user, and has the gRPC contract and the init container script where they are loaded from', () => {
    expect(runtime.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(runtime.runs.join('\n')).toContain(`chown ${runtime.user} ${runtime.volumes[0]}`);
    // src/cluster/peer-service.ts looks for the contract beside the compiled tree.
    expect(sourceOf('/app/proto/sluice.proto')).toBe(path.join(REPO, 'proto/sluice.proto'));
    expect(sourceOf('/app/deploy/merge-config.js')).toBe(path.join(REPO, 'deploy/merge-config.js'));
  });

  it("lets the topology modules of a derived image import 'sluice': it resolves to the image's own", () => {
    // /app/node_modules/sluice -> /app, whose package.json names the compiled entry point.
    expect(runtime.workdir).toBe('/app');
    expect(runtime.runs.join('\n')).toMatch(/\bln -s \.\. node_modules\/sluice\b/);
    const { main } = JSON.parse(fs.readFileSync(sourceOf('/app/package.json')!, 'utf8')) as { main: string };
    expect(sourceOf(path.posix.join('/app', main))).toBe(path.join(REPO, 'src/index.ts'));
  });

  it('what the image runs needs no development dependency', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    // An optional peer dependency (the Schema Registry client) is loaded only when a topology uses it, and a derived
    // image that does installs it with its own modules.
    const provided = (name: string) => name in manifest.dependencies || manifest.peerDependenciesMeta?.[name]?.optional === true;
    const shipped = loadHostConfig({ config: sourceOf(configPath!)! }, { SLUICE_BOOTSTRAP_SERVERS: 'kafka:9092' });
    const topologies = shipped.topologies.map(({ module }) => sourceOf(module)!);
    const loaded = packagesLoaded([sourceOf(script!)!, sourceOf('/app/dist/src/host/cli.js')!, sourceOf('/app/deploy/merge-config.js')!, ...topologies]);
    expect(loaded.size).toBeGreaterThan(5);
    const missing = [...loaded].filter(([name]) => !provided(name)).map(([name, file]) => `${name} (loaded by ${file})`);
    expect(missing).toEqual([]);
  });
});
