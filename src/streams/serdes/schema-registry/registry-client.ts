import { ConfigException, SchemaRegistryClientNotInstalled } from '../../../errors';
import { registryAgent } from './registry-tls';

/**
 * The registry settings of Confluent's serializers, read from the application's configuration under Kafka Streams'
 * names: node configuration only (sluice.yaml), never from the API.
 */
export interface RegistrySettings {
  url: string;
  /** `basic.auth.user.info` (`user:password`), with `basic.auth.credentials.source: USER_INFO`. */
  userInfo: string | undefined;
  autoRegister: boolean;
  useLatestVersion: boolean;
  keySubjectNameStrategy: SubjectNameStrategy;
  valueSubjectNameStrategy: SubjectNameStrategy;
  /** `json.fail.invalid.schema`: JSON Schema serdes validate what they write and read. */
  jsonValidate: boolean;
  /** The `schema.registry.ssl.*` settings, as given. */
  tls: Readonly<Record<string, string>>;
}

export type SubjectNameStrategy = 'topic' | 'record' | 'topic-record';

const STRATEGIES: Record<string, SubjectNameStrategy> = {
  TopicNameStrategy: 'topic',
  RecordNameStrategy: 'record',
  TopicRecordNameStrategy: 'topic-record',
};

const TLS_PREFIX = 'schema.registry.ssl.';

function strategy(config: Readonly<Record<string, unknown>>, key: string): SubjectNameStrategy {
  const value = config[key];
  if (value === undefined) return 'topic';
  // Java's class names (io.confluent.kafka.serializers.subject.TopicNameStrategy) or their last part.
  const name = String(value).split('.').pop()!;
  const found = STRATEGIES[name] ?? (Object.values(STRATEGIES).includes(name as SubjectNameStrategy) ? (name as SubjectNameStrategy) : undefined);
  if (found === undefined) throw new ConfigException(`${key} '${String(value)}' is none of ${Object.keys(STRATEGIES).join(', ')}`);
  return found;
}

function flag(config: Readonly<Record<string, unknown>>, key: string, defaultValue: boolean): boolean {
  const value = config[key];
  return value === undefined ? defaultValue : value === true || String(value).toLowerCase() === 'true';
}

export function registrySettings(config: Readonly<Record<string, unknown>>): RegistrySettings {
  const url = config['schema.registry.url'];
  if (url === undefined || String(url).trim() === '') throw new ConfigException('a Schema Registry serde needs schema.registry.url in the node configuration');
  const source = String(config['basic.auth.credentials.source'] ?? 'USER_INFO');
  if (source !== 'USER_INFO') throw new ConfigException(`basic.auth.credentials.source '${source}' is not supported: USER_INFO only`);
  const userInfo = config['basic.auth.user.info'];
  const tls = Object.fromEntries(
    Object.entries(config)
      .filter(([key, value]) => key.startsWith(TLS_PREFIX) && value !== undefined && value !== null)
      .map(([key, value]) => [key.slice(TLS_PREFIX.length), String(value)]),
  );
  return {
    url: String(url).trim(),
    userInfo: userInfo === undefined || userInfo === '' ? undefined : String(userInfo),
    autoRegister: flag(config, 'auto.register.schemas', true),
    useLatestVersion: flag(config, 'use.latest.version', false),
    keySubjectNameStrategy: strategy(config, 'key.subject.name.strategy'),
    valueSubjectNameStrategy: strategy(config, 'value.subject.name.strategy'),
    jsonValidate: flag(config, 'json.fail.invalid.schema', false),
    tls,
  };
}

/** A schema as the registry holds it (Confluent's REST API). */
export interface SchemaInfo {
  schemaType?: string;
  schema: string;
}

/**
 * What the serdes ask of a registry: the calls of @confluentinc/schemaregistry's client they use, so that its types
 * stay out of Sluice's own declarations (the package is an optional peer dependency).
 */
export interface RegistryClient {
  register(subject: string, schema: SchemaInfo): Promise<number>;
  getId(subject: string, schema: SchemaInfo): Promise<number>;
  getLatestSchemaMetadata(subject: string): Promise<{ id?: number; schema: string; schemaType?: string }>;
  getBySubjectAndId(subject: string, id: number): Promise<SchemaInfo>;
}

type ClientModule = typeof import('@confluentinc/schemaregistry/dist/schemaregistry-client');

let clientModule: ClientModule | undefined;

/**
 * Loads @confluentinc/schemaregistry's client, once, when the first registry serde is made: the package brings the
 * cloud KMS SDKs, which no other Sluice application should have to install. Its client module alone, not the package's
 * index, which loads those SDKs too (3.5 s against 1 s).
 */
function loadClientModule(): ClientModule {
  if (clientModule) return clientModule;
  try {
    clientModule = require('@confluentinc/schemaregistry/dist/schemaregistry-client') as ClientModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw new SchemaRegistryClientNotInstalled({ cause: error });
    throw error;
  }
  return clientModule;
}

/** Fails with SchemaRegistryClientNotInstalled when the client is not installed (its types stay out of Sluice's). */
export function ensureClientInstalled(): void {
  loadClientModule();
}

/** A request that hangs (a registry that stopped answering) fails after this, and is tried again (SerdeNotReady). */
const REQUEST_TIMEOUT_MS = 30_000;

/** One client per registry, credentials and TLS settings in the process: its caches serve every serde and task. */
const clients = new Map<string, RegistryClient>();

export function registryClient(settings: RegistrySettings): RegistryClient {
  const id = JSON.stringify([settings.url, settings.userInfo ?? '', settings.tls]);
  let client = clients.get(id);
  if (!client) {
    const { SchemaRegistryClient } = loadClientModule();
    const httpsAgent = registryAgent(settings.tls);
    client = new SchemaRegistryClient({
      baseURLs: settings.url.split(',').map((u) => u.trim()),
      createAxiosDefaults: { timeout: REQUEST_TIMEOUT_MS, ...(httpsAgent === undefined ? {} : { httpsAgent }) },
      // The serdes retry a failed look-up themselves, with a backoff, between records.
      maxRetries: 1,
      retriesWaitMs: 200,
      retriesMaxWaitMs: 1_000,
      ...(settings.userInfo === undefined ? {} : { basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: settings.userInfo } }),
    });
    clients.set(id, client);
  }
  return client;
}

/** The subject a schema is registered under for a topic: Confluent's subject name strategies. */
export function subjectName(strategy: SubjectNameStrategy, topic: string, isKey: boolean, recordName: string | undefined): string {
  if (strategy === 'topic') return `${topic}-${isKey ? 'key' : 'value'}`;
  if (recordName === undefined) throw new ConfigException(`the ${strategy} subject name strategy needs a named record schema`);
  return strategy === 'record' ? recordName : `${topic}-${recordName}`;
}

/** Node's codes for a server certificate that its truststore or its name does not vouch for. */
const CERTIFICATE_REFUSALS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** OpenSSL's alerts from a registry that wants a client certificate, or does not vouch for the one presented. */
const CLIENT_CERTIFICATE_REFUSALS = new Set(['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA']);

/**
 * Why a registry call failed. `record`: no such schema or subject, a schema the registry refuses, which the
 * deserialization handler decides on. `refused`: the registry refuses the credentials (401, 403) or the client
 * certificate, or Sluice refuses the registry's certificate, a configuration error that fails the task. `outage`: unreachable, timing out, overloaded, waited
 * out so that an outage never skips a record.
 */
export type RegistryFailure = 'record' | 'refused' | 'outage';

export function registryFailure(error: unknown): RegistryFailure {
  const { status, code } = error as { status?: unknown; code?: unknown };
  if (status === 404 || status === 409 || status === 422) return 'record';
  if (status === 401 || status === 403 || CERTIFICATE_REFUSALS.has(String(code)) || CLIENT_CERTIFICATE_REFUSALS.has(String(code))) return 'refused';
  return 'outage';
}

/** The registry's URLs without the credentials a URL may carry (`https://user:password@host`). */
export function urlWithoutCredentials(urls: string): string {
  return urls
    .split(',')
    .map((u) => u.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1'))
    .join(',');
}

/** The configuration error a refused call (`registryFailure` answered `refused`) fails the task with. */
export function refusal(urls: string, what: string, error: unknown): InstanceType<typeof ConfigException> {
  const at = `the Schema Registry at ${urlWithoutCredentials(urls)}`;
  const { status, code } = error as { status?: unknown; code?: unknown };
  const detail =
    status === 401
      ? `${at} refused the credentials (HTTP 401) for ${what}: check basic.auth.user.info`
      : status === 403
        ? `${at} refused access to ${what} (HTTP 403): check what the user of basic.auth.user.info may read and register`
        : CLIENT_CERTIFICATE_REFUSALS.has(String(code))
          ? `${at} refused the client certificate (${String(code)}) when asked for ${what}: check schema.registry.ssl.keystore.*`
          : `${at} presented a certificate Sluice does not trust (${String(code)}) when asked for ${what}: check schema.registry.ssl.truststore.* and the URL's host name`;
  return new ConfigException(detail, { cause: error });
}
