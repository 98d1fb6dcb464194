/**
 * A real Kafka broker for the integration tests (and demos), from the first of:
 *   1. `KAFKA_BOOTSTRAP_SERVERS`: a cluster someone already runs;
 *   2. Testcontainers' Kafka module, when a Docker engine answers;
 *   3. a local single-node KRaft broker from Apache Kafka's jars, when Java 17+ and Maven (or cached jars) are
 *      there.
 * The broker started (2, 3) is Apache Kafka 3.9 unless `$SLUICE_KAFKA_VERSION` asks for 4.2.
 */
import { NoBrokerAvailable } from '../../errors';
import { dockerEngineAnswers } from './docker';
import { cachedKafkaLibs, kafkaVersionSetting, type KafkaRelease } from './jars';
import { LocalKafka } from './local-kafka';
import { findJava, findOnPath } from './toolchain';

export type BrokerKind = 'external' | 'testcontainers' | 'local-jars';

export interface ProvidedBroker {
  /** Kafka's `bootstrap.servers`: comma-separated `host:port`. */
  bootstrapServers: string;
  kind: BrokerKind;
  /** Apache Kafka version, or 'unknown' for an external cluster. */
  version: string;
  /** Stops what was started; nothing for an external cluster. */
  stop(): Promise<void>;
}

export interface ProvideBrokerOptions {
  /** Progress lines (the one-time jar download, fallbacks); default nowhere. */
  log?: (line: string) => void;
}

/** The Confluent Platform image of each Kafka major the local broker runs: 7.9 ships Apache Kafka 3.9, 8.2 ships 4.2. */
const KAFKA_IMAGES: Readonly<Record<KafkaRelease['major'], { image: string; version: string }>> = {
  3: { image: 'confluentinc/cp-kafka:7.9.0', version: '3.9.0' },
  4: { image: 'confluentinc/cp-kafka:8.2.0', version: '4.2.0' },
};
const MIN_JAVA = 17;

export async function provideBroker(options: ProvideBrokerOptions = {}): Promise<ProvidedBroker> {
  const log = options.log ?? (() => undefined);
  // A bad $SLUICE_KAFKA_VERSION fails here, whichever broker would have been used.
  const release = kafkaVersionSetting();
  const external = process.env.KAFKA_BOOTSTRAP_SERVERS?.trim();
  if (external) {
    // Reading the version would take a Java tool or a guess from API versions; not worth it here.
    return { bootstrapServers: external, kind: 'external', version: 'unknown', stop: () => Promise.resolve() };
  }

  const missing: string[] = [];
  if (await dockerEngineAnswers()) {
    const container = await startContainer(KAFKA_IMAGES[release.major], log);
    if (container) return container;
    missing.push('a Testcontainers module that loads on this Node.js');
  } else {
    missing.push('a Docker engine');
  }

  const java = await findJava();
  const canFetchJars = cachedKafkaLibs(release) !== undefined || findOnPath('mvn') !== undefined;
  if (java && java.major >= MIN_JAVA && canFetchJars) {
    const broker = await LocalKafka.start({ kafkaVersion: release.version, javaCommand: java.command, log });
    return { bootstrapServers: broker.bootstrapServers, kind: 'local-jars', version: broker.version, stop: () => broker.stop() };
  }
  if (!java) missing.push(`Java ${MIN_JAVA}+ (no java found)`);
  else if (java.major < MIN_JAVA) missing.push(`Java ${MIN_JAVA}+ (found Java ${java.major})`);
  if (!canFetchJars) missing.push('Maven (mvn) to fetch the broker jars');
  throw new NoBrokerAvailable(
    `set KAFKA_BOOTSTRAP_SERVERS, or run a Docker engine, or install Java ${MIN_JAVA}+ and Maven; missing: ${missing.join(', ')}`,
  );
}

/**
 * Starts Kafka in a container; Testcontainers' reaper removes it should this process die. Undefined when the
 * module cannot be loaded (testcontainers 12.1+ needs Node.js 22.22+), so that the local broker gets a chance.
 */
async function startContainer(kafka: { image: string; version: string }, log: (line: string) => void): Promise<ProvidedBroker | undefined> {
  let module: typeof import('@testcontainers/kafka');
  try {
    module = await import('@testcontainers/kafka');
  } catch (error) {
    log(`A Docker engine answers but @testcontainers/kafka does not load on Node.js ${process.versions.node}: ${(error as Error).message}`);
    return undefined;
  }
  const container = await new module.KafkaContainer(kafka.image).withKraft().start();
  return {
    bootstrapServers: `${container.getHost()}:${container.getMappedPort(9093)}`,
    kind: 'testcontainers',
    version: kafka.version,
    stop: async () => {
      await container.stop();
    },
  };
}
