/**
 * A broker of its own for the Kafka security tests: the local jar broker with a SASL_SSL listener (SCRAM-SHA-512 and
 * PLAIN users, OAUTHBEARER) and an SSL listener that requires client certificates, on TLS material this run makes.
 * The suite's shared broker stays plaintext (and fast); this one is started only by the files that need it.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedKafkaLibs } from '../../../src/host/broker/jars';
import { LocalKafka, type BrokerListeners } from '../../../src/host/broker/local-kafka';
import { findJava, findOnPath } from '../../../src/host/broker/toolchain';
import { makeTestCertificates, type TestCertificates } from '../../../src/streams/kafka/testing/certificates';

export interface SecuredKafka {
  readonly listeners: Required<BrokerListeners>;
  readonly certificates: TestCertificates;
  /** PEM files of the TLS material, and the users' passwords: the secrets a test checks never show. */
  readonly files: { ca: string; unknownCa: string; clientKeyAndChain: string; jksKeystore: string };
  readonly scramUser: { name: string; password: string };
  readonly plainUser: { name: string; password: string };
  readonly secrets: readonly string[];
  /** Seconds the broker took to start. */
  readonly startSeconds: number;
  stop(): Promise<void>;
}

/** Why the secured broker cannot run here, or undefined when it can (Java 17+ and the jars, or Maven to fetch them). */
export async function securedKafkaUnavailable(): Promise<string | undefined> {
  const java = await findJava();
  if (!java || java.major < 17) return 'Java 17+ is not installed';
  if (cachedKafkaLibs() === undefined && findOnPath('mvn') === undefined) return 'neither the Kafka jars nor Maven are there';
  return undefined;
}

const secret = (prefix: string) => `${prefix}-${randomBytes(9).toString('hex')}`;

export async function startSecuredKafka(): Promise<SecuredKafka> {
  const started = Date.now();
  const scramUser = { name: 'sluice-scram', password: secret('scram-pw') };
  const plainUser = { name: 'sluice-plain', password: secret('plain-pw') };
  const certificates = makeTestCertificates(['127.0.0.1', 'localhost'], secret('key-pw'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-tls-'));
  const write = (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  const files = {
    ca: write('ca.pem', certificates.ca),
    unknownCa: write('unknown-ca.pem', certificates.unknownCa),
    clientKeyAndChain: write('client.pem', certificates.client.key + certificates.client.chain),
    // A JKS store's magic number and version: what Sluice must recognise and refuse.
    jksKeystore: write('client.jks', Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 0])),
  };
  const java = await findJava();
  const broker = await LocalKafka.start({
    javaCommand: java!.command,
    secured: {
      brokerKeyAndChain: certificates.broker.key + certificates.broker.chain,
      clientCa: certificates.ca,
      scramUsers: [scramUser],
      plainUsers: [plainUser],
    },
  });
  return {
    listeners: broker.listeners as Required<BrokerListeners>,
    certificates,
    files,
    scramUser,
    plainUser,
    secrets: [scramUser.password, plainUser.password, certificates.client.keyPassword!],
    startSeconds: (Date.now() - started) / 1000,
    stop: async () => {
      await broker.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
