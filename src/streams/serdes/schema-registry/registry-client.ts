import { SchemaRegistryClient, type ClientConfig } from '@confluentinc/schemaregistry';
import { ConfigException } from '../../../errors';

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
}

export type SubjectNameStrategy = 'topic' | 'record' | 'topic-record';

const STRATEGIES: Record<string, SubjectNameStrategy> = {
  TopicNameStrategy: 'topic',
  RecordNameStrategy: 'record',
  TopicRecordNameStrategy: 'topic-record',
};

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
  return {
    url: String(url).trim(),
    userInfo: userInfo === undefined || userInfo === '' ? undefined : String(userInfo),
    autoRegister: flag(config, 'auto.register.schemas', true),
    useLatestVersion: flag(config, 'use.latest.version', false),
    keySubjectNameStrategy: strategy(config, 'key.subject.name.strategy'),
    valueSubjectNameStrategy: strategy(config, 'value.subject.name.strategy'),
  };
}

/** One client per registry and credentials in the process: its caches serve every serde and task. */
const clients = new Map<string, SchemaRegistryClient>();

export function registryClient(settings: RegistrySettings): SchemaRegistryClient {
  const id = `${settings.url}\u0000${settings.userInfo ?? ''}`;
  let client = clients.get(id);
  if (!client) {
    const config: ClientConfig = {
      baseURLs: settings.url.split(',').map((u) => u.trim()),
      ...(settings.userInfo === undefined ? {} : { basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: settings.userInfo } }),
    };
    client = new SchemaRegistryClient(config);
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
