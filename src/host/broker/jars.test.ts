import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigException } from '../../errors';
import { cachedKafkaLibs, ensureKafkaJars, KAFKA_VERSION, kafkaLibsDir, kafkaMavenLibs, kafkaVersionSetting, parseKafkaVersion } from './jars';
import { writeLoggingConfig } from './local-kafka';
import { provideBroker } from './provide-broker';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('the local broker\'s Kafka release ($SLUICE_KAFKA_VERSION)', () => {
  it('is 3.9.1 when the setting is unset or empty', () => {
    expect(KAFKA_VERSION).toBe('3.9.1');
    expect(kafkaVersionSetting({})).toEqual({ version: '3.9.1', major: 3, logging: 'log4j' });
    expect(kafkaVersionSetting({ SLUICE_KAFKA_VERSION: ' ' })).toEqual({ version: '3.9.1', major: 3, logging: 'log4j' });
  });

  it('takes a line for its pinned release, or a release of a line', () => {
    expect(kafkaVersionSetting({ SLUICE_KAFKA_VERSION: '4.2' })).toEqual({ version: '4.2.2', major: 4, logging: 'log4j2' });
    expect(parseKafkaVersion('4.2.1')).toEqual({ version: '4.2.1', major: 4, logging: 'log4j2' });
    expect(parseKafkaVersion(' 3.9 ')).toEqual({ version: '3.9.1', major: 3, logging: 'log4j' });
    expect(parseKafkaVersion('3.9.1')).toEqual({ version: '3.9.1', major: 3, logging: 'log4j' });
  });

  it.each(['5.0', '4', '4.1.1', 'latest', '4.2.x', '4.2.2-rc1', 'v4.2'])('refuses %p, naming the setting and what it takes', (value) => {
    const error = (() => {
      try {
        return kafkaVersionSetting({ SLUICE_KAFKA_VERSION: value });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigException);
    expect((error as Error).message).toBe(
      `Invalid configuration: SLUICE_KAFKA_VERSION must be a Kafka line the local broker runs, 3.9 (3.9.1) or 4.2 (4.2.2), ` +
        `or a release of one (e.g. 4.2.1); got '${value}'`,
    );
  });

  it('stops provideBroker at once on a bad value, before any broker is looked for', async () => {
    process.env.SLUICE_KAFKA_VERSION = '4.0';
    process.env.KAFKA_BOOTSTRAP_SERVERS = 'kafka-1:9092';
    await expect(provideBroker()).rejects.toThrow(ConfigException);
  });

  it('keeps each release\'s jars in a cache directory of its own, fetched with that release\'s POM profile', () => {
    process.env.SLUICE_CACHE_DIR = '/cache';
    expect(kafkaLibsDir(parseKafkaVersion('3.9'))).toBe('/cache/kafka-3.9.1/libs');
    expect(kafkaLibsDir(parseKafkaVersion('4.2'))).toBe('/cache/kafka-4.2.2/libs');
    process.env.SLUICE_KAFKA_VERSION = '4.2';
    expect(kafkaLibsDir()).toBe('/cache/kafka-4.2.2/libs');
    expect(kafkaMavenLibs(parseKafkaVersion('4.2'))).toMatchObject({
      description: 'Apache Kafka 4.2.2 broker',
      libsDir: '/cache/kafka-4.2.2/libs',
      mavenArgs: ['-Dkafka.version=4.2.2', '-Pkafka-4'],
    });
    expect(kafkaMavenLibs(parseKafkaVersion('3.9')).mavenArgs).toEqual(['-Dkafka.version=3.9.1', '-Pkafka-3']);
  });

  it('has a profile in pom.xml for each major, kafka-3 the default', () => {
    const pom = readFileSync(join(__dirname, 'pom.xml'), 'utf8');
    expect(pom).toContain(`<kafka.version>${KAFKA_VERSION}</kafka.version>`);
    expect(pom).toMatch(/<id>kafka-3<\/id>\s*<activation><activeByDefault>true<\/activeByDefault><\/activation>[\s\S]*slf4j-reload4j/);
    expect(pom).toMatch(/<id>kafka-4<\/id>[\s\S]*log4j-slf4j-impl/);
  });

  it('runs Maven with the release and its profile, into the release\'s directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-fake-mvn-'));
    try {
      // A stand-in for Maven: writes its arguments into the -Dlibs.dir it is given.
      await writeFile(
        join(dir, 'mvn'),
        '#!/bin/sh\nfor a in "$@"; do case "$a" in -Dlibs.dir=*) libs="${a#-Dlibs.dir=}";; esac; done\n' +
          'mkdir -p "$libs" && printf "%s\\n" "$@" > "$libs/args"\n',
      );
      await chmod(join(dir, 'mvn'), 0o755);
      process.env.PATH = `${dir}:${saved.PATH ?? ''}`;
      process.env.SLUICE_CACHE_DIR = dir;
      process.env.SLUICE_KAFKA_VERSION = '4.2';
      expect(cachedKafkaLibs()).toBeUndefined();
      const libs = await ensureKafkaJars();
      expect(libs).toBe(join(dir, 'kafka-4.2.2', 'libs'));
      expect(cachedKafkaLibs()).toBe(libs);
      expect(cachedKafkaLibs(parseKafkaVersion('3.9'))).toBeUndefined();
      const args = (await readFile(join(libs, 'args'), 'utf8')).trim().split('\n');
      expect(args).toEqual(expect.arrayContaining(['package', '-Dkafka.version=4.2.2', '-Pkafka-4']));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the local broker\'s logging configuration', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-logging-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is log4j 1 properties for Kafka 3.x', async () => {
    const option = await writeLoggingConfig(dir, parseKafkaVersion('3.9'));
    expect(option).toBe(`-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`);
    const text = await readFile(join(dir, 'log4j.properties'), 'utf8');
    expect(text).toContain(`log4j.appender.file.File=${join(dir, 'logs', 'server.log')}\n`);
    expect(text).toContain('log4j.logger.kafka.server.KafkaRaftServer=INFO\n');
  });

  it('is log4j2 properties for Kafka 4.x', async () => {
    const option = await writeLoggingConfig(dir, parseKafkaVersion('4.2'));
    expect(option).toBe(`-Dlog4j2.configurationFile=${join(dir, 'log4j2.properties')}`);
    const text = await readFile(join(dir, 'log4j2.properties'), 'utf8');
    expect(text).toContain(`appender.file.fileName=${join(dir, 'logs', 'server.log')}\n`);
    expect(text).toContain('rootLogger.appenderRef.file.ref=file\n');
    expect(text).toContain('logger.started.name=kafka.server.KafkaRaftServer\nlogger.started.level=INFO\n');
  });
});
