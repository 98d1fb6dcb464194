/**
 * Starts one real Kafka broker for the whole integration run (see provideBroker for the choice) and hands its
 * address to the test workers through KAFKA_BOOTSTRAP_SERVERS.
 */
import { provideBroker, type ProvidedBroker } from '../../src/host/broker/provide-broker';

/** Jest keeps globals of globalSetup for globalTeardown, and only for it. */
export interface BrokerGlobal {
  __sluiceTestBroker?: ProvidedBroker;
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const broker = await provideBroker({ log: (line) => process.stderr.write(`${line}\n`) });
  (globalThis as BrokerGlobal).__sluiceTestBroker = broker;
  process.env.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrapServers;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `\nKafka for integration tests: ${broker.kind}, Apache Kafka ${broker.version}, at ${broker.bootstrapServers} (${seconds} s)\n`,
  );
}
