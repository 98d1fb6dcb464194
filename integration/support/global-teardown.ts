/** Stops the broker globalSetup started (nothing for an external cluster). */
import type { BrokerGlobal } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as BrokerGlobal;
  await holder.__sluiceTestBroker?.stop();
  delete holder.__sluiceTestBroker;
}
