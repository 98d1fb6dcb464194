/**
 * The host's configuration: a YAML or JSON file (whose values may come from `${env:NAME}` and `${file:/path}`), then
 * SLUICE_* environment variables, then command-line flags (each overriding the one before), validated against one
 * JSON schema. Every error is one line naming the key.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { ConfigException } from '../../errors';
import { DEFAULT_MAX_CONNECTIONS } from '../../server/connections';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from '../../server/timeouts';
import type { ConfigValue } from '../../streams/runtime/streams-config';
import { resolvePeerPaths, type PeersConfig } from './peers';
import type { ApiTokenSpec } from '../../server/auth/api-tokens';
import type { FailedLoginLimits } from '../../server/auth/failed-logins';
import type { JwtOptions } from '../../server/auth/jwt';
import type { UserSpec } from '../../server/auth/users';
import { resolveReferences } from './references';
import { hostConfigSchema, LOG_COMPONENTS, LOG_FORMATS, LOG_LEVELS } from './schema';
import { resolveServerTlsPaths, type ServerTlsConfig } from './server-tls';

export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogComponent = (typeof LOG_COMPONENTS)[number];

export interface LogConfig {
  /** Every component's level, unless `components` gives its own. */
  level: LogLevel;
  /** Default auto: pretty on a terminal, JSON lines otherwise. */
  format?: LogFormat;
  components?: Partial<Record<LogComponent, LogLevel>>;
}

export interface InstanceSpec {
  /** Topology name or alias. */
  topology: string;
  version?: string;
  applicationId?: string;
  description?: string;
  config?: Record<string, ConfigValue>;
}

export interface HostConfig {
  server: {
    /** The interface to listen on; loopback by default. Any other needs users, or `allowUnauthenticated`. */
    host: string;
    port: number;
    /** Port of the gRPC peer service that answers other nodes' queries; 0 takes a free one. */
    grpcPort: number;
    /** The host name peers and clients reach this node by; default: `host`, or this machine's name when that is a wildcard. */
    advertisedHost?: string;
    headless: boolean;
    /** HTTP Basic users: a scrypt hash (`sluice hash-password`) and a role each. */
    users?: Record<string, UserSpec>;
    /** Development only: accept users' passwords in plain text. */
    allowPlaintextPasswords?: boolean;
    /** Static bearer tokens (`sluice new-token`), stored as SHA-256 hashes. */
    tokens?: ApiTokenSpec[];
    /** Bearer JWTs verified against a JWKS; `jwks` is an absolute path once loaded, or a URL. */
    jwt?: JwtOptions;
    /** Failed password logins allowed per client address and per user in a window (default: the server's). */
    failedLogins?: Partial<FailedLoginLimits>;
    /** Browser origins allowed to call the API (CORS); none: no CORS headers. */
    cors?: { origins: string[] };
    /** HTTPS: PEM files (absolute paths once loaded) or PEM text; `clientCa` requires client certificates. */
    tls?: ServerTlsConfig;
    /** Serve interfaces other than loopback without users: an explicit choice, never a default. */
    allowUnauthenticated: boolean;
    sse: { queueSize: number; keepaliveMs: number; metricsIntervalMs: number };
    timeouts: HttpTimeouts;
    /** HTTP connections held at once; a new one past it is closed as it is accepted, and the log says so. */
    maxConnections: number;
  };
  /** How nodes authenticate each other on the gRPC peer port (none: plaintext, any caller answered). */
  peers?: PeersConfig;
  log: LogConfig;
  /** Streams configuration every instance starts from (Kafka Streams' names). */
  streams: Record<string, ConfigValue>;
  /** Modules exporting topology definitions, as absolute paths or package names. */
  topologies: { module: string }[];
  instances: InstanceSpec[];
  /** How long closing the instances may take at shutdown. */
  shutdownTimeoutMs: number;
  /**
   * The node's memory budget in bytes (`memory.budget`, `SLUICE_MEMORY_BUDGET`); undefined: the container's memory
   * limit, if there is one (resolveMemoryBudget).
   */
  memory?: { budget?: number };
}

/** Values given on the command line; absent ones leave the file and environment alone. */
export interface ConfigFlags {
  config?: string;
  host?: string;
  port?: number;
  bootstrapServers?: string;
  stateDir?: string;
  logLevel?: string;
  logFormat?: string;
  allowUnauthenticated?: boolean;
}

/** The environment variables read, and where each lands. Documented by `sluice start --help`. */
export const ENVIRONMENT_VARIABLES: readonly { name: string; key: string; description: string }[] = [
  { name: 'SLUICE_CONFIG', key: '', description: 'configuration file, when --config is not given' },
  { name: 'SLUICE_BOOTSTRAP_SERVERS', key: 'streams.bootstrap.servers', description: 'Kafka brokers, host:port,...' },
  { name: 'SLUICE_STATE_DIR', key: 'streams.state.dir', description: 'directory of the local state stores' },
  { name: 'SLUICE_APPLICATION_SERVER', key: 'streams.application.server', description: 'host:port this node is reached at' },
  { name: 'SLUICE_GROUP_INSTANCE_ID', key: 'streams.group.instance.id', description: 'static membership: this node\'s stable name (a pod\'s name)' },
  { name: 'SLUICE_HOST', key: 'server.host', description: 'HTTP interface to listen on' },
  { name: 'SLUICE_PORT', key: 'server.port', description: 'HTTP port' },
  { name: 'SLUICE_GRPC_PORT', key: 'server.grpcPort', description: 'gRPC port of the peer service' },
  { name: 'SLUICE_ADVERTISED_HOST', key: 'server.advertisedHost', description: 'host name for application.server' },
  { name: 'SLUICE_HEADLESS', key: 'server.headless', description: 'true: refuse restart, stop and deploy' },
  {
    name: 'SLUICE_ALLOW_UNAUTHENTICATED',
    key: 'server.allowUnauthenticated',
    description: 'true: serve a non-loopback host without users',
  },
  { name: 'SLUICE_LOG_LEVEL', key: 'log.level', description: LOG_LEVELS.join(', ') },
  { name: 'SLUICE_LOG_FORMAT', key: 'log.format', description: LOG_FORMATS.join(', ') },
  { name: 'SLUICE_MEMORY_BUDGET', key: 'memory.budget', description: 'the node\'s memory budget: bytes, or 512Mi, 1Gi, ... (default: the container\'s memory limit)' },
];

const DEFAULTS = {
  server: {
    // Loopback: a node serves other machines only when told to (docs/security.md, "Security defaults").
    host: '127.0.0.1',
    port: 8080,
    grpcPort: 0,
    headless: false,
    allowPlaintextPasswords: false,
    allowUnauthenticated: false,
    sse: { queueSize: 10_000, keepaliveMs: 15_000, metricsIntervalMs: 5000 },
    timeouts: DEFAULT_HTTP_TIMEOUTS,
    maxConnections: DEFAULT_MAX_CONNECTIONS,
  },
  log: { level: 'info' as LogLevel },
  shutdownTimeoutMs: 30_000,
};

type Json = Record<string, unknown>;

function objectAt(root: Json, key: string): Json {
  const existing = root[key];
  if (typeof existing === 'object' && existing !== null && !Array.isArray(existing)) return existing as Json;
  const created: Json = {};
  root[key] = created;
  return created;
}

/** Sets `section.key` (the key may itself hold dots, as streams keys do). */
function setAt(root: Json, section: string, key: string, value: unknown): void {
  objectAt(root, section)[key] = value;
}

function readFile(file: string): Json {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigException(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigException(`${file} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigException(`${file} must hold an object at the top`);
  return parsed as Json;
}

function integerFrom(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new ConfigException(`${name} must be a whole number, got '${text}'`);
  return Number(text);
}

function booleanFrom(name: string, text: string): boolean {
  if (text !== 'true' && text !== 'false') throw new ConfigException(`${name} must be true or false, got '${text}'`);
  return text === 'true';
}

function applyEnvironment(raw: Json, env: NodeJS.ProcessEnv): void {
  const value = (name: string) => (env[name] !== undefined && env[name] !== '' ? env[name] : undefined);
  const bootstrap = value('SLUICE_BOOTSTRAP_SERVERS');
  if (bootstrap !== undefined) setAt(raw, 'streams', 'bootstrap.servers', bootstrap);
  const stateDir = value('SLUICE_STATE_DIR');
  if (stateDir !== undefined) setAt(raw, 'streams', 'state.dir', stateDir);
  const applicationServer = value('SLUICE_APPLICATION_SERVER');
  if (applicationServer !== undefined) setAt(raw, 'streams', 'application.server', applicationServer);
  const instanceId = value('SLUICE_GROUP_INSTANCE_ID');
  if (instanceId !== undefined) setAt(raw, 'streams', 'group.instance.id', instanceId);
  const host = value('SLUICE_HOST');
  if (host !== undefined) setAt(raw, 'server', 'host', host);
  const port = value('SLUICE_PORT');
  if (port !== undefined) setAt(raw, 'server', 'port', integerFrom('SLUICE_PORT', port));
  const grpcPort = value('SLUICE_GRPC_PORT');
  if (grpcPort !== undefined) setAt(raw, 'server', 'grpcPort', integerFrom('SLUICE_GRPC_PORT', grpcPort));
  const advertised = value('SLUICE_ADVERTISED_HOST');
  if (advertised !== undefined) setAt(raw, 'server', 'advertisedHost', advertised);
  const headless = value('SLUICE_HEADLESS');
  if (headless !== undefined) setAt(raw, 'server', 'headless', booleanFrom('SLUICE_HEADLESS', headless));
  const unauthenticated = value('SLUICE_ALLOW_UNAUTHENTICATED');
  if (unauthenticated !== undefined) setAt(raw, 'server', 'allowUnauthenticated', booleanFrom('SLUICE_ALLOW_UNAUTHENTICATED', unauthenticated));
  const level = value('SLUICE_LOG_LEVEL');
  if (level !== undefined) setAt(raw, 'log', 'level', level);
  const format = value('SLUICE_LOG_FORMAT');
  if (format !== undefined) setAt(raw, 'log', 'format', format);
  const memoryBudget = value('SLUICE_MEMORY_BUDGET');
  if (memoryBudget !== undefined) setAt(raw, 'memory', 'budget', memoryBudget);
}

function applyFlags(raw: Json, flags: ConfigFlags): void {
  if (flags.host !== undefined) setAt(raw, 'server', 'host', flags.host);
  if (flags.port !== undefined) setAt(raw, 'server', 'port', flags.port);
  if (flags.bootstrapServers !== undefined) setAt(raw, 'streams', 'bootstrap.servers', flags.bootstrapServers);
  if (flags.stateDir !== undefined) setAt(raw, 'streams', 'state.dir', flags.stateDir);
  if (flags.logLevel !== undefined) setAt(raw, 'log', 'level', flags.logLevel);
  if (flags.logFormat !== undefined) setAt(raw, 'log', 'format', flags.logFormat);
  if (flags.allowUnauthenticated === true) setAt(raw, 'server', 'allowUnauthenticated', true);
}

/** `/instances/0/config` → `instances[0].config`. */
function keyPath(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

function describeError(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required': {
      const key = keyPath(error.instancePath, String(error.params.missingProperty));
      const hint = key === 'streams.bootstrap.servers' ? ' (in the file, SLUICE_BOOTSTRAP_SERVERS or --bootstrap-servers)' : '';
      return `missing key '${key}'${hint}`;
    }
    case 'additionalProperties':
      return `unknown key '${keyPath(error.instancePath, String(error.params.additionalProperty))}'`;
    case 'type':
      return `'${keyPath(error.instancePath)}' must be of type ${String(error.params.type).replace(/,/g, ' or ')}`;
    case 'enum':
      return `'${keyPath(error.instancePath)}' must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return `'${keyPath(error.instancePath) || '(top)'}' ${error.message ?? 'is invalid'}`;
  }
}

const validate = new Ajv({ allErrors: false, allowUnionTypes: true, strict: true }).compile(hostConfigSchema);

/** Module paths relative to the directory of the file that names them (or to the working directory). */
function resolveModule(specifier: string, baseDir: string): string {
  return specifier.startsWith('.') || path.isAbsolute(specifier) ? path.resolve(baseDir, specifier) : specifier;
}

/** A JWKS URL as it is; a file relative to the configuration file's directory. */
function resolveJwks(jwks: string, baseDir: string): string {
  return /^https?:\/\//i.test(jwks) ? jwks : path.resolve(baseDir, jwks);
}

/**
 * Reads, merges and validates the configuration. The file is `flags.config`, else `SLUICE_CONFIG`, else none
 * (then environment and flags must give at least the bootstrap servers).
 */
export function loadHostConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): HostConfig {
  const file = flags.config ?? (env.SLUICE_CONFIG || undefined);
  const raw: Json = file === undefined ? {} : (resolveReferences(readFile(file), { env, baseDir: path.dirname(path.resolve(file)) }) as Json);
  applyEnvironment(raw, env);
  applyFlags(raw, flags);
  // So that a configuration without streams is told which key it lacks.
  raw.streams ??= {};
  if (!validate(raw)) {
    const where = file === undefined ? '' : ` (${file})`;
    throw new ConfigException(`${describeError(validate.errors![0]!)}${where}`);
  }
  const baseDir = file === undefined ? process.cwd() : path.dirname(path.resolve(file));
  const given = raw as unknown as Partial<HostConfig> & { server?: Partial<HostConfig['server']> };
  return {
    server: {
      ...DEFAULTS.server,
      ...given.server,
      sse: { ...DEFAULTS.server.sse, ...given.server?.sse },
      timeouts: { ...DEFAULTS.server.timeouts, ...given.server?.timeouts },
      ...(given.server?.jwt && { jwt: { ...given.server.jwt, jwks: resolveJwks(given.server.jwt.jwks, baseDir) } }),
      ...(given.server?.tls && { tls: resolveServerTlsPaths(given.server.tls, baseDir) }),
    },
    peers: resolvePeerPaths(given.peers, baseDir),
    log: { ...DEFAULTS.log, ...given.log },
    streams: { ...given.streams },
    topologies: (given.topologies ?? []).map(({ module }) => ({ module: resolveModule(module, baseDir) })),
    instances: given.instances ?? [],
    shutdownTimeoutMs: given.shutdownTimeoutMs ?? DEFAULTS.shutdownTimeoutMs,
    memory: given.memory?.budget === undefined ? {} : { budget: byteSize('memory.budget', given.memory.budget as number | string) },
  };
}

const BYTE_UNITS: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/** Bytes from a number or a Kubernetes quantity (`512Mi`, `1G`), as the schema admits them. */
export function byteSize(name: string, value: number | string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti|k|K|M|G|T)?$/.exec(String(value));
  const bytes = match === null ? Number.NaN : Number(match[1]) * BYTE_UNITS[match[2] ?? '']!;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new ConfigException(`${name} must be a positive number of bytes or a quantity such as 512Mi, got '${value}'`);
  return bytes;
}
