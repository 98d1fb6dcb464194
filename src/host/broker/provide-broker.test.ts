import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NoBrokerAvailable } from '../../errors';
import { provideBroker } from './provide-broker';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

it('takes KAFKA_BOOTSTRAP_SERVERS as it is, and has nothing to stop', async () => {
  process.env.KAFKA_BOOTSTRAP_SERVERS = 'kafka-1:9092,kafka-2:9092';
  const broker = await provideBroker();
  expect(broker).toMatchObject({ bootstrapServers: 'kafka-1:9092,kafka-2:9092', kind: 'external', version: 'unknown' });
  await expect(broker.stop()).resolves.toBeUndefined();
});

it('says in one line what is missing when there is no Docker engine, no Java and no Maven', async () => {
  const empty = await mkdtemp(join(tmpdir(), 'sluice-no-tools-'));
  try {
    delete process.env.KAFKA_BOOTSTRAP_SERVERS;
    delete process.env.JAVA_HOME;
    process.env.DOCKER_HOST = `unix://${join(empty, 'docker.sock')}`;
    process.env.PATH = empty;
    process.env.SLUICE_CACHE_DIR = empty;
    const started = Date.now();
    const error = await provideBroker().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoBrokerAvailable);
    expect((error as Error).message).toBe(
      'No Kafka broker available: set KAFKA_BOOTSTRAP_SERVERS, or run a Docker engine, or install Java 17+ and Maven; ' +
        'missing: a Docker engine, Java 17+ (no java found), Maven (mvn) to fetch the broker jars',
    );
    expect((error as Error).message).not.toContain('\n');
    expect(Date.now() - started).toBeLessThan(2000);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});
