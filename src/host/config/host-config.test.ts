import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadHostConfig } from './host-config';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-config-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const full = path.join(dir, name);
  fs.writeFileSync(full, text);
  return full;
}

function errorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('no error');
}

describe('host configuration', () => {
  it('reads YAML, with defaults for what it leaves out and module paths relative to the file', () => {
    const config = loadHostConfig(
      {
        config: file(
          'a.yaml',
          [
            'server:',
            '  port: 9090',
            'streams:',
            '  bootstrap.servers: kafka:9092',
            '  num.stream.threads: 2',
            'topologies:',
            '  - module: ./lib/topologies',
            '  - module: some-package',
            'instances:',
            '  - topology: word-count',
            '    config: { commit.interval.ms: 100 }',
          ].join('\n'),
        ),
      },
      {},
    );
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 9090,
      grpcPort: 0,
      headless: false,
      allowPlaintextPasswords: false,
      allowUnauthenticated: false,
      sse: { queueSize: 10_000, keepaliveMs: 15_000, metricsIntervalMs: 5000 },
      timeouts: { requestMs: 30_000, headersMs: 10_000, keepAliveMs: 72_000 },
      maxConnections: 1000,
    });
    expect(config.streams).toEqual({ 'bootstrap.servers': 'kafka:9092', 'num.stream.threads': 2 });
    expect(config.topologies).toEqual([{ module: path.join(dir, 'lib/topologies') }, { module: 'some-package' }]);
    expect(config.instances).toEqual([{ topology: 'word-count', config: { 'commit.interval.ms': 100 } }]);
    expect(config.log.level).toBe('info');
    expect(config.shutdownTimeoutMs).toBe(30_000);
  });

  it('reads JSON too', () => {
    const config = loadHostConfig({ config: file('b.json', '{"streams": {"bootstrap.servers": "k:1"}, "log": {"level": "warn"}}') }, {});
    expect(config.log.level).toBe('warn');
  });

  it('log format and component levels from the file; the format also from the environment or the flag', () => {
    const config = file('l.yaml', 'log: { level: info, format: json, components: { kafka: debug, http: warn } }\nstreams: { bootstrap.servers: k:1 }\n');
    expect(loadHostConfig({ config }, {}).log).toEqual({ level: 'info', format: 'json', components: { kafka: 'debug', http: 'warn' } });
    expect(loadHostConfig({ config }, { SLUICE_LOG_FORMAT: 'pretty' }).log.format).toBe('pretty');
    expect(loadHostConfig({ config, logFormat: 'pretty' }, { SLUICE_LOG_FORMAT: 'json' }).log.format).toBe('pretty');
    const unknown = file('m.yaml', 'log: { components: { grpc: info } }\nstreams: { bootstrap.servers: k:1 }\n');
    expect(errorOf(() => loadHostConfig({ config: unknown }, {}))).toContain("unknown key 'log.components.grpc'");
  });

  it('memory budget from the file or the environment, in bytes or as a Kubernetes quantity; anything else refused by name', () => {
    const config = file('mem.yaml', 'memory: { budget: 512Mi }\nstreams: { bootstrap.servers: k:1 }\n');
    expect(loadHostConfig({ config }, {}).memory).toEqual({ budget: 512 * 1024 * 1024 });
    expect(loadHostConfig({ config }, { SLUICE_MEMORY_BUDGET: '268435456' }).memory).toEqual({ budget: 268_435_456 });
    expect(loadHostConfig({ config }, { SLUICE_MEMORY_BUDGET: '1G' }).memory).toEqual({ budget: 1e9 });
    expect(loadHostConfig({ config: file('nomem.yaml', 'streams: { bootstrap.servers: k:1 }\n') }, {}).memory).toEqual({});
    expect(errorOf(() => loadHostConfig({ config }, { SLUICE_MEMORY_BUDGET: '512MB' }))).toContain("'memory.budget'");
    expect(errorOf(() => loadHostConfig({ config: file('zero.yaml', 'memory: { budget: 0 }\nstreams: { bootstrap.servers: k:1 }\n') }, {}))).toContain("'memory.budget'");
  });

  it('environment overrides the file, flags override both', () => {
    const config = file('c.yaml', 'server: { port: 1000 }\nstreams: { bootstrap.servers: file:1, state.dir: /file }\n');
    const env = { SLUICE_PORT: '2000', SLUICE_BOOTSTRAP_SERVERS: 'env:1', SLUICE_HEADLESS: 'true', SLUICE_LOG_LEVEL: 'debug' };
    const loaded = loadHostConfig({ config, port: 3000, stateDir: '/flag' }, env);
    expect(loaded.server.port).toBe(3000);
    expect(loaded.server.headless).toBe(true);
    expect(loaded.streams).toEqual({ 'bootstrap.servers': 'env:1', 'state.dir': '/flag' });
    expect(loaded.log.level).toBe('debug');
    expect(loadHostConfig({}, { SLUICE_CONFIG: config }).server.port).toBe(1000);
  });

  it('allowUnauthenticated from the file, the environment or the flag; timeouts and the cap on connections from the file', () => {
    const config = file('d.yaml', 'server: { host: 0.0.0.0, timeouts: { requestMs: 5000 }, maxConnections: 50 }\nstreams: { bootstrap.servers: k:1 }\n');
    const fromFile = loadHostConfig({ config }, {});
    expect([fromFile.server.host, fromFile.server.allowUnauthenticated]).toEqual(['0.0.0.0', false]);
    expect(fromFile.server.timeouts).toEqual({ requestMs: 5000, headersMs: 10_000, keepAliveMs: 72_000 });
    expect(fromFile.server.maxConnections).toBe(50);
    expect(loadHostConfig({ config }, { SLUICE_ALLOW_UNAUTHENTICATED: 'true' }).server.allowUnauthenticated).toBe(true);
    expect(loadHostConfig({ config, allowUnauthenticated: true }, {}).server.allowUnauthenticated).toBe(true);
    const allowed = file('e.yaml', 'server: { allowUnauthenticated: true }\nstreams: { bootstrap.servers: k:1 }\n');
    expect(loadHostConfig({ config: allowed }, {}).server.allowUnauthenticated).toBe(true);
  });

  it.each([
    ['server:\n  prot: 1\nstreams: { bootstrap.servers: k:1 }', "Invalid configuration: unknown key 'server.prot'"],
    ['server:\n  port: "80"\nstreams: { bootstrap.servers: k:1 }', "Invalid configuration: 'server.port' must be of type integer"],
    ['server:\n  port: 70000\nstreams: { bootstrap.servers: k:1 }', "Invalid configuration: 'server.port' must be <= 65535"],
    ['server:\n  maxConnections: 0\nstreams: { bootstrap.servers: k:1 }', "Invalid configuration: 'server.maxConnections' must be >= 1"],
    ['streams: { state.dir: /x }', "Invalid configuration: missing key 'streams.bootstrap.servers' (in the file, SLUICE_BOOTSTRAP_SERVERS or --bootstrap-servers)"],
    ['log: { level: loud }\nstreams: { bootstrap.servers: k:1 }', "Invalid configuration: 'log.level' must be one of fatal, error, warn, info, debug, trace, silent"],
    ['streams: { bootstrap.servers: k:1 }\ninstances:\n  - topology: t\n    colour: red', "Invalid configuration: unknown key 'instances[0].colour'"],
    ['streams: { bootstrap.servers: k:1 }\ninstances:\n  - config: {}', "Invalid configuration: missing key 'instances[0].topology'"],
    ['streams: { bootstrap.servers: k:1, num.stream.threads: [1] }', "Invalid configuration: 'streams.num.stream.threads' must be of type string or number or boolean"],
    ['- just\n- a list', 'must hold an object at the top'],
    ['server: [unclosed', 'is not valid YAML or JSON'],
  ])('one clear line for %j', (text, message) => {
    const name = file('bad.yaml', text);
    const error = errorOf(() => loadHostConfig({ config: name }, {}));
    expect(error).toContain(message);
    expect(error).not.toContain('\n');
  });

  it('names the environment variable that is wrong, and the file that is missing', () => {
    expect(errorOf(() => loadHostConfig({}, { SLUICE_PORT: 'eighty', SLUICE_BOOTSTRAP_SERVERS: 'k:1' }))).toBe(
      "Invalid configuration: SLUICE_PORT must be a whole number, got 'eighty'",
    );
    expect(errorOf(() => loadHostConfig({ config: path.join(dir, 'nope.yaml') }, {}))).toContain('cannot read');
  });
});
