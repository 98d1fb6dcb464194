/**
 * The state directory's disk fills up while the application writes its stores: the instance fails with an error
 * that says so (never a crash of the process, never a silent loss), and once space is back a new start restores
 * from the changelog and ends with every record, none lost. Twice: the disk filled by another process while the
 * instance is idle, and filled by the instance's own store writes. The state directory is a small tmpfs of the
 * test's own (this runs as root, as CI does on this machine). The instances run in processes of their own: on a full
 * disk lmdb-js logs from its native callbacks, which in a jest worker would land in whichever test's console loaded it.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, waitFor } from '../support/streams';
import { InstanceProcess } from '../runtime/support/instance-process';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS * 2);

const BATCH = 5_000;
const VALUE = 'v'.repeat(200);
const MIN_FREE_BYTES = 8 * 1024 * 1024;
const clients = new KafkaTestClients();
const mountPoint = tempStateDir('sluice-disk-full-');
const logs = tempStateDir('sluice-disk-full-logs-');
const filler = path.join(mountPoint, 'filler');
const children: InstanceProcess[] = [];
const admins = clients.admin();

beforeAll(() => {
  // Small enough that the test's writes fill it in seconds; after the filler goes, room for LMDB to write all the
  // records again while it restores (copy-on-write: a restore batch's transaction takes new pages for all it writes).
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mountPoint]);
});

afterAll(async () => {
  await Promise.allSettled(children.map((child) => child.kill()));
  await clients.close();
  execFileSync('umount', ['-l', mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
  fs.rmSync(logs, { recursive: true, force: true });
});

/** Takes all the file system's free space but `leaveBytes`. */
function fillDisk(leaveBytes: number): void {
  const stats = fs.statfsSync(mountPoint);
  const blocks = Math.floor((stats.bavail * stats.bsize - leaveBytes) / 65_536);
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k', ...(leaveBytes > 0 ? [`count=${blocks}`] : [])], { stdio: 'ignore' });
  } catch {
    // Without a count dd stops with an error when the disk is full: what was wanted.
  }
}

describe.each([
  { filledBy: 'another process, while the instance is idle', leaveBytes: 0, more: 3 * BATCH },
  // 2 MB above the floor: the instance's own writes take the disk below it.
  { filledBy: "the instance's own writes", leaveBytes: MIN_FREE_BYTES + 2 * 1024 * 1024, more: 12 * BATCH },
])('the disk filled by $filledBy', ({ leaveBytes, more }) => {
  const input = uniqueName('disk-full-in');
  const config = {
    'application.id': uniqueName('disk-full'),
    'bootstrap.servers': bootstrapServers().join(','),
    'state.dir': path.join(mountPoint, uniqueName('state')),
    'commit.interval.ms': 200,
    // The tmpfs is 96 MB, filled to leave less: the default floor (64 MiB) would refuse the first writes.
    'state.dir.min.free.bytes': MIN_FREE_BYTES,
  };
  const total = BATCH + more;

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

  async function committedRecords(): Promise<number> {
    const [committed] = await (await admins).fetchOffsets({ groupId: config['application.id'], topics: [input] });
    return (committed?.partitions ?? []).reduce((sum, partition) => sum + Math.max(0, Number(partition.offset)), 0);
  }

  const stored = async (child: InstanceProcess) => (await child.storeValues<string>()).size;

  beforeAll(async () => {
    await createTopics(await admins, [{ name: input, partitions: 2 }]);
  });

  afterAll(() => {
    fs.rmSync(filler, { force: true });
    fs.rmSync(config['state.dir'], { recursive: true, force: true });
  });

  it('fails with a clear error, and after space returns a new start has every record', async () => {
    await produce(0, BATCH);
    const first = start('first');
    try {
      await waitFor(async () => first.state === 'RUNNING' && (await stored(first)) === BATCH, 'the first records to be stored', 90_000);
      // Offsets are committed after the stores are flushed: then no LMDB write is in flight when the disk fills.
      await waitFor(async () => (await committedRecords()) === BATCH, 'the first records to be committed', 30_000);
      fillDisk(leaveBytes);
      process.stderr.write(`disk-full: ${fs.statfsSync(mountPoint).bavail * fs.statfsSync(mountPoint).bsize} bytes left\n`);
      await produce(BATCH, total);
      await waitFor(() => first.state === 'ERROR', 'the instance to fail on the full disk', 90_000);
      const { lastError } = await first.status();
      process.stderr.write(`disk-full: the instance failed with: ${lastError}\n`);
      expect(lastError).toMatch(/Not enough disk space for the store values: .* has \d+ bytes free, less than state\.dir\.min\.free\.bytes \(8388608\)/);
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
      await waitFor(async () => second.state === 'RUNNING' && (await stored(second)) === total, 'every record to be stored after the restart', 120_000);
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
});
