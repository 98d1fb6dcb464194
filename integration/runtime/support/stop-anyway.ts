/**
 * Cleanup for tests that may catch the runtime in a bad state: an instance left with live stream threads after
 * close() (a close during start), or still in PENDING_ERROR when close()'s timeout ran out, keeps its consumer in
 * the group and jest alive. Then the instance's own shutdown (private) is called directly, so that a failing test
 * does not hang the run. Never a substitute for close() in what a test asserts.
 */
import type { StreamsInstance } from '../../../src';
import { KafkaTestClients } from '../../support/kafka';

export async function stopAnyway(instance: StreamsInstance, timeoutMs = 10_000): Promise<void> {
  await instance.close({ timeoutMs });
  const leftRunning = instance.threads().some((thread) => thread.state !== 'DEAD');
  if (leftRunning || instance.state === 'PENDING_ERROR') {
    await (instance as unknown as { shutdown(): Promise<void> }).shutdown();
  }
}

/**
 * The clients and in-process instances of a test file: every instance pushed to `instances` is stopped after the
 * file's tests, even failed ones, before the clients close.
 */
export function instancesUnderTest(): { clients: KafkaTestClients; instances: StreamsInstance[] } {
  const clients = new KafkaTestClients();
  const instances: StreamsInstance[] = [];
  afterAll(async () => {
    await Promise.allSettled(instances.map((instance) => stopAnyway(instance)));
    await clients.close();
  }, 30_000);
  return { clients, instances };
}
