import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import type { KeyValueStore, StreamsInstance, ValueAndTimestamp } from '../../src';
import type { KafkaConsumer, KafkaProducer } from '../../src/streams/kafka';
import { corpusOf } from '../../bench/wordcount/corpus';
import { PeerClient } from '../../src/cluster/peer-client';
import { QueryService } from '../../src/query/query-service';

/** The tests' word-count input: the benchmark's first corpus, 12 words, so every word is counted many times. */
export const corpusLine = corpusOf(12);

/** Logs of instances under test: warnings and errors only, so test output stays readable. */
export const testLogger = pino({ level: process.env.SLUICE_TEST_LOG_LEVEL ?? 'warn' });

export function tempStateDir(prefix = 'sluice-it-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Resolves when `predicate` holds, polling; rejects with `what` after `timeoutMs`. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Key → value over the partitions of a timestamped key-value store that `instance` can query now. */
export function storeValues<V>(instance: StreamsInstance, store: string): Map<string, V> {
  const values = new Map<string, V>();
  for (const partition of instance.queryableStores(store).values()) {
    for (const kv of (partition as unknown as KeyValueStore<string, ValueAndTimestamp<V>>).all()) values.set(kv.key, kv.value.value);
  }
  return values;
}

/** The query service of a node that runs `instance` alone, as `sluice start` builds it. */
export function localQueryService(instance: StreamsInstance, peers: PeerClient): QueryService {
  return new QueryService({ applications: (id) => (id === instance.applicationId ? instance : undefined), localServer: 'localhost:0', peers });
}

/**
 * Key → value of a key-value store over the partitions `instance` holds, as an `all` query answers it: those of
 * its stream threads in workers too. Empty while the instance cannot answer (rebalancing, restoring).
 */
export async function queriedStoreValues<V>(instance: StreamsInstance, store: string): Promise<Map<string, V>> {
  const peers = new PeerClient();
  try {
    const service = localQueryService(instance, peers);
    const answer = await service.execute(instance.applicationId, store, { type: 'key_value', query: { all: {} } });
    if (answer.status !== 'SUCCESS') return new Map();
    return new Map(answer.result.success.flatMap((part) => (part.records as { key: string; value: V }[]).map((r) => [r.key, r.value])));
  } finally {
    peers.close();
  }
}

export async function waitForState(instance: StreamsInstance, state: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(() => instance.state === state, `${instance.applicationId} to be ${state} (is ${instance.state})`, timeoutMs);
}

export function expectedCounts(lines: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < lines; i++) for (const w of corpusLine(i).split(' ')) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

export async function produceLines(producer: KafkaProducer, topic: string, from: number, to: number): Promise<void> {
  const batch = 5000;
  for (let start = from; start < to; start += batch) {
    const messages = [];
    for (let i = start; i < Math.min(to, start + batch); i++) messages.push({ key: `line-${i}`, value: corpusLine(i) });
    await producer.send({ topic, messages });
  }
}

/** Reads a word-count output topic from the start and keeps the latest count per word until `done` says so. */
export async function latestCounts(
  consumer: KafkaConsumer,
  topic: string,
  done: (counts: Map<string, number>) => boolean,
  timeoutMs = 90_000,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        if (m.key && m.value) counts.set(m.key.toString('utf8'), Number(m.value.readBigInt64BE(0)));
      }
      if (done(counts)) finish();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      finished,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    await consumer.stop();
  }
  return counts;
}
