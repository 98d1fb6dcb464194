/**
 * Local state that cannot be trusted is detected, wiped and restored from the changelog, never used and never a
 * crash loop: a corrupted `.checkpoint`, an LMDB file whose head is damaged (lmdb-js would die on it with SIGSEGV),
 * and a task whose stores were opening when the process died (what a damaged page deeper in the file does).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StreamsInstance } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import type { RestoreEvent } from '../../src/streams/runtime/instance-view';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { expectedCounts, produceLines, tempStateDir, testLogger, waitFor, waitForState, storeValues } from '../support/streams';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const LINES = 3_000;
const PARTITIONS = 2;
const clients = new KafkaTestClients();
const input = uniqueName('corrupt-in');
const output = uniqueName('corrupt-out');
const expected = expectedCounts(LINES);
const config = {
  'application.id': uniqueName('corrupt'),
  'bootstrap.servers': bootstrapServers().join(','),
  'state.dir': tempStateDir(),
  'commit.interval.ms': 200,
};
const taskDirs = () => Array.from({ length: PARTITIONS }, (_, p) => path.join(config['state.dir'], config['application.id'], `1_${p}`));

const storeCounts = (instance: StreamsInstance): Map<string, number> => storeValues<number>(instance, 'count');

/** Runs the word count until its store holds every count; answers how many changelog records it restored. */
async function run(): Promise<{ restored: number; changelogRecords: number; counts: Map<string, number> }> {
  const instance = new StreamsInstance(wordCountTopology(input, output), config, { logger: testLogger });
  const restores: RestoreEvent[] = [];
  instance.on('restore', (e) => restores.push(e));
  await instance.start();
  try {
    await waitForState(instance, 'RUNNING');
    await waitFor(() => [...expected].every(([w, n]) => storeCounts(instance).get(w) === n), 'every word counted in the store');
    const offsets = await (await clients.admin()).fetchTopicOffsets(`${config['application.id']}-count-changelog`);
    return {
      restored: restores.filter((e) => e.done).reduce((n, e) => n + e.restored, 0),
      changelogRecords: offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0),
      counts: storeCounts(instance),
    };
  } finally {
    await instance.close();
  }
}

beforeAll(async () => {
  const admin = await clients.admin();
  await createTopics(admin, [{ name: input, partitions: PARTITIONS }, { name: output, partitions: PARTITIONS }]);
  await produceLines(await clients.producer(), input, 0, LINES);
  const first = await run();
  expect(first.restored).toBe(0);
  expect(taskDirs().every((dir) => fs.existsSync(path.join(dir, '.checkpoint')))).toBe(true);
}, BROKER_TEST_TIMEOUT_MS);

afterAll(() => clients.close());

/** After the damage, a start restores every changelog record and answers the same counts. */
async function expectFullRestore(): Promise<void> {
  const after = await run();
  expect(Object.fromEntries(after.counts)).toEqual(Object.fromEntries(expected));
  expect(after.restored).toBe(after.changelogRecords);
  // The next clean start trusts the new checkpoint again.
  expect((await run()).restored).toBeLessThan(after.changelogRecords);
}

it('a corrupted .checkpoint is not trusted: the task restores its store in full', async () => {
  for (const dir of taskDirs()) {
    const file = path.join(dir, '.checkpoint');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    // A checkpoint cut short in the middle of its entry: its offset would read as a smaller, wrong one.
    fs.writeFileSync(file, `${lines[0]}\n${lines[1]}\n${(lines[2] ?? '').slice(0, -2)}`);
  }
  await expectFullRestore();
});

it('an LMDB file with a damaged head is detected before it is opened: wiped and restored, the process lives', async () => {
  for (const dir of taskDirs()) {
    const file = path.join(dir, 'lmdb', 'count', 'data.mdb');
    const bytes = fs.readFileSync(file);
    bytes.fill(0x41, 0, 64);
    fs.writeFileSync(file, bytes);
  }
  await expectFullRestore();
});

it('a task whose stores were opening when the process died is restored in full', async () => {
  for (const dir of taskDirs()) fs.writeFileSync(path.join(dir, '.opening'), '1');
  await expectFullRestore();
});
