/**
 * A produce quota on the local broker for every client (`producer_byte_rate`, a default client quota), set with Kafka's
 * own ConfigCommand from the broker's jars: a broker slower than the application, so that what a benchmark measures
 * meets back-pressure, as a throttled or distant cluster makes it.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { cachedKafkaLibs } from '../../src/host/broker/jars';
import { findJava } from '../../src/host/broker/toolchain';

const run = promisify(execFile);

/** Limits what each client may produce to `bytesPerSecond`; or why it cannot be done here. */
export async function throttleProducers(bootstrapServers: string, bytesPerSecond: number): Promise<string | undefined> {
  const java = await findJava();
  const libs = cachedKafkaLibs();
  if (java === undefined || libs === undefined) return 'a produce quota needs Java and the local broker\'s jars';
  try {
    await run(java.command, [
      '-cp',
      path.join(libs, '*'),
      'kafka.admin.ConfigCommand',
      '--bootstrap-server',
      bootstrapServers,
      '--alter',
      '--add-config',
      `producer_byte_rate=${bytesPerSecond}`,
      '--entity-type',
      'clients',
      '--entity-default',
    ]);
    return undefined;
  } catch (error) {
    return `setting the produce quota failed: ${(error as Error).message}`;
  }
}
