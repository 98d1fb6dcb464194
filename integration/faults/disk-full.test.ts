/**
 * The state directory's disk fills up while the application writes its stores: the instance fails with an error
 * that says so (never a crash of the process, never a silent loss), and once space is back a new start restores
 * from the changelog and ends with every record, none lost. The state directory is a small tmpfs of the test's
 * own (this runs as root, as CI does on this machine). The instances run in processes of their own: on a full disk
 * lmdb-js logs from its native callbacks, which in a jest worker would land in whichever test's console loaded it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, waitFor } from '../support/streams';
import { InstanceProcess } from '../runtime/support/instance-process';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 2);

const BATCH = 5_000;
const VALUE = 'v'.repeat(200);
const clients = new KafkaTestClients();
const input = uniqueName('disk-full-in');
const mountPoint = tempStateDir('sluice-disk-full-');
const logs = tempStateDir('sluice-disk-full-logs-');
const filler = path.join(mountPoint, 'filler');
const config = {
  'application.id': uniqueName('disk-full'),
  'bootstrap.servers': bootstrapServers().join(','),
  'state.dir': path.join(mountPoint, 'state'),
  'commit.interval.ms': 200,
};
const children: InstanceProcess[] = [];

function start(name: string): InstanceProcess {
  const child = InstanceProcess.start({ name, input, output: input, topology: 'table', config, logLevel: process.env.SLUICE_TEST_LOG_LEVEL ?? 'warn' }, logs);
  children.push(child);
  return child;
}

async function produce(from: number, to: number): Promise<void> {
  const producer = await clients.producer();
  for (let start = from; start < to; start += 1000) {
    const messages = Array.from({ length: Math.min(1000, to - start) }, (_, i) => ({ key: `key-${start + i}`, value: `${start + i}:${VALUE}` }));
    await producer.send({ topic: input, messages });
  }
}

/** Fills the file system up: the filler takes every byte left. */
function fillDisk(): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd stops with an error when the disk is full: what was wanted.
  }
}

beforeAll(async () => {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint]);
  const admin = await clients.admin();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: input, numPartitions: 2 }] });
});

afterAll(async () => {
  await Promise.allSettled(children.map((child) => child.kill()));
  await clients.close();
  execFileSync('umount', ['-l', mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
  fs.rmSync(logs, { recursive: true, force: true });
});

/**
 * Not in `npm test`: on a full disk lmdb-js's native writer sometimes corrupts the heap and aborts the process
 * (glibc 'corrupted size vs. prev_size', SIGABRT) before Sluice can refuse further writes, in about one CI run in two.
 * `npm run test:faults` (SLUICE_FAULTS_ALL=1) runs it.
 */
const itWhenAllFaults = process.env.SLUICE_FAULTS_ALL === '1' ? it : it.skip;

itWhenAllFaults('fails with a clear error when the disk is full, and after space returns a new start has every record', async () => {
  await produce(0, BATCH);
  const first = start('first');
  const stored = async (child: InstanceProcess) => (await child.storeValues<string>()).size;
  try {
    await waitFor(async () => first.state === 'RUNNING' && (await stored(first)) === BATCH, 'the first records to be stored', 90_000);
    fillDisk();
    process.stderr.write(`disk-full: ${fs.statfsSync(mountPoint).bavail} blocks left\n`);
    await produce(BATCH, 4 * BATCH);
    await waitFor(() => first.state === 'ERROR', 'the instance to fail on the full disk', 90_000);
    const { lastError } = await first.status();
    process.stderr.write(`disk-full: the instance failed with: ${lastError}\n`);
    expect(lastError).toMatch(/ENOSPC|no space left|MDB_MAP_FULL|space/i);
    // It failed; the process did not crash.
    expect(first.running).toBe(true);
  } catch (error) {
    process.stderr.write(`--- first: ${first.exit}\n${first.tail(40)}\n`);
    throw error;
  } finally {
    await first.stop();
  }

  fs.rmSync(filler);
  const second = start('second');
  try {
    await waitFor(async () => second.state === 'RUNNING' && (await stored(second)) === 4 * BATCH, 'every record to be stored after the restart', 120_000);
    const values = await second.storeValues<string>();
    const wrong = [...values].filter(([key, value]) => value !== `${key.slice('key-'.length)}:${VALUE}`);
    expect(wrong).toEqual([]);
    expect(second.errors).toEqual([]);
  } catch (error) {
    process.stderr.write(`--- second: ${second.exit}\n${second.tail(40)}\n`);
    throw error;
  } finally {
    await second.stop();
  }
});
