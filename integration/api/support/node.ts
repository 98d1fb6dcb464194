/**
 * One Sluice node in the test process for the API tests: the real host (fastify, real StreamsInstance runtimes) on a
 * loopback port against the integration broker, and an HTTP client for it (undici).
 */
import * as fs from 'node:fs';
import { request } from 'undici';
import { wordCountTopology } from '../../../examples/word-count';
import type { HostConfig, InstanceSpec } from '../../../src/host/config/host-config';
import { SluiceHost } from '../../../src/host/host';
import type { TopologyDefinition } from '../../../src/host/topology-definition';
import { StreamsBuilder } from '../../../src/streams/kstream/streams-builder';
import type { ConfigValue } from '../../../src/streams/runtime/streams-config';
import { Serdes } from '../../../src/streams/serdes/serdes';
import { bootstrapServers } from '../../support/kafka';
import { tempStateDir, testLogger, waitFor } from '../../support/streams';
import { testServerConfig } from '../../../src/host/testing/server-config';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): unknown;
}

export class TestNode {
  private constructor(
    readonly host: SluiceHost,
    readonly stateDir: string,
  ) {}

  static async start(options: {
    topologies: TopologyDefinition[];
    instances: InstanceSpec[];
    streams?: Record<string, ConfigValue>;
    sse?: Partial<HostConfig['server']['sse']>;
    /** Overrides of the server section (users, headless, ...). */
    server?: Partial<HostConfig['server']>;
    memory?: HostConfig['memory'];
  }): Promise<TestNode> {
    const stateDir = tempStateDir('sluice-api-');
    const host = await SluiceHost.start({
      config: {
        server: testServerConfig({ sse: { queueSize: 10_000, keepaliveMs: 15_000, metricsIntervalMs: 1000, ...options.sse }, ...options.server }),
        log: { level: 'warn' },
        streams: {
          'bootstrap.servers': bootstrapServers().join(','),
          'state.dir': stateDir,
          'commit.interval.ms': 200,
          ...options.streams,
        },
        topologies: [],
        instances: options.instances,
        shutdownTimeoutMs: 30_000,
        ...(options.memory ? { memory: options.memory } : {}),
      },
      topologies: options.topologies,
      logger: testLogger,
    });
    return new TestNode(host, stateDir);
  }

  get url(): string {
    return this.host.url;
  }

  async call(method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH', path: string, body?: string | object, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await request(`${this.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as unknown };
  }

  get(path: string): Promise<Answer> {
    return this.call('GET', path);
  }

  /** The instance's state as `GET /api/v1/streams/{id}` shows it. */
  async state(id: string): Promise<string> {
    return ((await this.get(`/api/v1/streams/${id}`)).json() as { state: { state: string } }).state.state;
  }

  async waitForState(id: string, state: string, timeoutMs = 90_000): Promise<void> {
    let last = '';
    await waitFor(async () => (last = await this.state(id)) === state, `${id} to be ${state} (is ${last})`, timeoutMs);
  }

  async stop(): Promise<void> {
    await this.host.stop();
    fs.rmSync(this.stateDir, { recursive: true, force: true });
  }
}

/** The example word count on topics of the test's own, as a registered topology. */
export function wordCountDefinition(input: string, output: string): TopologyDefinition {
  return {
    name: 'io.sluice.it.WordCount',
    version: '1.0.0',
    description: 'Word count on test topics',
    aliases: ['word-count'],
    build: () => wordCountTopology(input, output),
  };
}

/** Copies its input to its output and fails on the value `poison`: an instance that can be driven into ERROR. */
export function poisonableDefinition(alias: string, input: string, output: string): TopologyDefinition {
  return {
    name: `io.sluice.it.Poisonable.${alias}`,
    version: '1.0.0',
    description: 'Fails on poison',
    aliases: [alias],
    build: () => {
      const builder = new StreamsBuilder();
      builder
        .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .peek((_key, value) => {
          if (value === 'poison') throw new Error('poison record');
        })
        .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
      return builder.build();
    },
  };
}
