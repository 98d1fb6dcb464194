/**
 * Cleanup for tests that may catch the runtime in a bad state: an instance left with live stream threads after
 * close() (a close during start), or stuck in PENDING_ERROR (close() returns at once there) keeps its consumer in
 * the group and jest alive. Then the instance's own shutdown (private) is called directly, so that a failing test
 * does not hang the run. Never a substitute for close() in what a test asserts.
 */
import type { StreamsInstance } from '../../../src';

export async function stopAnyway(instance: StreamsInstance, timeoutMs = 10_000): Promise<void> {
  await instance.close({ timeoutMs });
  const leftRunning = instance.threads().some((thread) => thread.state !== 'DEAD');
  if (leftRunning || instance.state === 'PENDING_ERROR') {
    await (instance as unknown as { shutdown(): Promise<void> }).shutdown();
  }
}
