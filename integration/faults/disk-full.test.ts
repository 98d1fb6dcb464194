/**
 * The state directory's disk fills up while the application writes its stores: the instance fails with an error
 * that says so (never a crash of the process, never a silent loss), and once space is back a new start restores
 * from the changelog and ends with every record, none lost. The state directory is a small tmpfs of the test's
 * own (this runs as root, as CI does on this machine).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor, waitForState, storeValues } from '../support/streams';
import { itWhenAllFaults } from './support/guarantees';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 2);

const STORE = 'values';
const BATCH = 5_000;
const VALUE = 'v'.repeat(200);
const clients = new KafkaTestClients();
const input = uniqueName('disk-full-in');
const mountPoint = tempStateDir('sluice-disk-full-');
const filler = path.join(mountPoint, 'filler');
const config = {
  'application.id': uniqueName('disk-full'),
  'bootstrap.servers': bootstrapServers().join(','),
  'state.dir': path.join(mountPoint, 'state'),
  'commit.interval.ms': 200,
};

function topology() {
  const builder = new StreamsBuilder();
  builder.table<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, { storeName: STORE });
  return builder.build();
}

const stored = (instance: StreamsInstance): Map<string, string> => storeValues<string>(instance, STORE);

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
  await clients.close();
  execFileSync('umount', ['-l', mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

itWhenAllFaults('fails with a clear error when the disk is full, and after space returns a new start has every record', async () => {
  await produce(0, BATCH);
  const first = new StreamsInstance(topology(), config, { logger: testLogger });
  await first.start();
  try {
    await waitForState(first, 'RUNNING');
    await waitFor(() => stored(first).size === BATCH, 'the first records to be stored', 60_000);
    fillDisk();
    process.stderr.write(`disk-full: ${fs.statfsSync(mountPoint).bavail} blocks left\n`);
    await produce(BATCH, 4 * BATCH);
    await waitFor(() => first.state === 'ERROR', 'the instance to fail on the full disk', 90_000);
    expect(first.lastError?.message).toMatch(/ENOSPC|no space left|MDB_MAP_FULL|space/i);
  } finally {
    await first.close();
  }

  process.stderr.write(`disk-full: the instance failed with: ${first.lastError?.message}\n`);
  fs.rmSync(filler);
  const second = new StreamsInstance(topology(), config, { logger: testLogger });
  await second.start();
  try {
    await waitForState(second, 'RUNNING', 90_000);
    await waitFor(() => stored(second).size === 4 * BATCH, 'every record to be stored after the restart', 90_000);
    const values = stored(second);
    const wrong = [...values].filter(([key, value]) => value !== `${key.slice('key-'.length)}:${VALUE}`);
    expect(wrong).toEqual([]);
  } finally {
    await second.close();
  }
});
