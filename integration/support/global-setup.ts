/**
 * Starts one real Kafka broker for the whole integration run (see provideBroker for the choice) and hands its
 * address to the test workers through KAFKA_BOOTSTRAP_SERVERS; meanwhile installs Chromium for the browser tests
 * when it is missing (a failure is handed to those tests, which then fail with it, not to the others), fetches
 * Azkarra's web UI once (when it cannot be had, its test is skipped with the reason), on a Kafka 4 broker Kafka's own
 * tools (a test asks them about a streams group; one that cannot be had fails that test when it runs), and builds the
 * web console that the nodes under test serve at /ui.
 */
import { provideBroker, type ProvidedBroker } from '../../src/host/broker/provide-broker';
import * as path from 'node:path';
import { buildConsole } from '../../ui/build';
import { kafkaVersionSetting } from '../../src/host/broker/jars';
import { AZKARRA_UI_ERROR_ENV, ensureAzkarraUi } from './azkarra-ui';
import { CHROMIUM_ERROR_ENV, ensureChromium } from './chromium';
import { ensureKafkaTools } from './kafka-tools';

/** Jest keeps globals of globalSetup for globalTeardown, and only for it. */
export interface BrokerGlobal {
  __sluiceTestBroker?: ProvidedBroker;
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const chromium = ensureChromium(log);
  const azkarraUi = ensureAzkarraUi(log);
  const release = kafkaVersionSetting();
  const kafkaTools =
    release.major === 4
      ? ensureKafkaTools(release.version, log).then(
          () => undefined,
          (error: Error) => error.message,
        )
      : Promise.resolve(undefined);
  await buildConsole(path.resolve(__dirname, '..', '..'));
  const broker = await provideBroker({ log });
  (globalThis as BrokerGlobal).__sluiceTestBroker = broker;
  process.env.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrapServers;
  const chromiumError = await chromium;
  if (chromiumError !== undefined) {
    process.env[CHROMIUM_ERROR_ENV] = chromiumError;
    log(`Browser tests will fail: ${chromiumError}`);
  }
  const azkarraUiError = await azkarraUi;
  if (azkarraUiError !== undefined) {
    process.env[AZKARRA_UI_ERROR_ENV] = azkarraUiError;
    log(`The Azkarra web UI test will be skipped: ${azkarraUiError}`);
  }
  const kafkaToolsError = await kafkaTools;
  if (kafkaToolsError !== undefined) log(`Kafka's tools could not be fetched; the test that runs them will fail: ${kafkaToolsError}`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `\nKafka for integration tests: ${broker.kind}, Apache Kafka ${broker.version}, at ${broker.bootstrapServers} (${seconds} s)\n`,
  );
}
