/** Stops the broker and the registry globalSetup started (nothing for external ones). */
import type { BrokerGlobal } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as BrokerGlobal;
  await holder.__sluiceTestRegistry?.stop();
  delete holder.__sluiceTestRegistry;
  await holder.__sluiceTestBroker?.stop();
  delete holder.__sluiceTestBroker;
}
