/** A word count's topics as the benchmarks fill and watch them: the input produced, the group's progress through it. */
import type { Admin } from 'kafkajs';
import { createProducer, type KafkaClient } from '../../src/streams/kafka';
import { log, sleep } from './program';

const PRODUCE_BATCH = 10_000;
const POLL_MS = 250;
/** How long reading a word count's output to check it may take. */
const CHECK_TIMEOUT_MS = 120_000;
/** A group that commits nothing new for this long is hung, not slow. */
const STALL_MS = 120_000;

/** Produces lines 0..count-1 of `lineOf` to `topic`, keyed `line-<i>`, with the project's producer. */
export async function produceLines(kafka: KafkaClient, topic: string, count: number, lineOf: (i: number) => string, label: string): Promise<void> {
  const producer = createProducer(kafka);
  await producer.connect();
  const started = Date.now();
  for (let start = 0; start < count; start += PRODUCE_BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(count, start + PRODUCE_BATCH); i++) messages.push({ key: `line-${i}`, value: lineOf(i) });
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
  log(`produced ${count} lines for ${label} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Waits until the group has committed the end of the input and of its repartition topic (every word counted).
 * The repartition topic is found by name, `<application.id>-<store or generated name>-repartition`: Kafka
 * Streams names it after the count's generated store name. Returns why it cannot finish, if it cannot: `running`
 * failed, or nothing was committed for STALL_MS.
 */
export async function waitCaughtUp(
  admin: Admin,
  groupId: string,
  input: string,
  running: { failure(): string | undefined },
): Promise<string | undefined> {
  let repartition: string | undefined;
  let lastCommitted = -1;
  let lastProgress = Date.now();
  for (let tick = 0; ; tick++) {
    await sleep(POLL_MS);
    const failure = running.failure();
    if (failure !== undefined) return failure;
    let progress: { inputDone: number; inputEnd: number; repartitionDone: number; repartitionEnd: number };
    try {
      repartition ??= (await admin.listTopics()).find((topic) => topic.startsWith(`${groupId}-`) && topic.endsWith('-repartition'));
      progress = await committedAndEnd(admin, groupId, input, repartition);
    } catch (error) {
      // A topic the application has just created may not have its leaders everywhere yet: ask again next tick.
      if ((error as { retriable?: boolean }).retriable === true) continue;
      throw error;
    }
    const { inputDone, inputEnd, repartitionDone, repartitionEnd } = progress;
    if (process.env.BENCH_DEBUG && tick % 8 === 0) log(`input ${inputDone}/${inputEnd} repartition ${repartitionDone}/${repartitionEnd}`);
    if (inputDone >= inputEnd && repartitionEnd > 0 && repartitionDone >= repartitionEnd) return undefined;
    if (inputDone + repartitionDone !== lastCommitted) {
      lastCommitted = inputDone + repartitionDone;
      lastProgress = Date.now();
    } else if (Date.now() - lastProgress > STALL_MS) {
      return `no offsets committed for ${STALL_MS / 1000} s (input ${inputDone}/${inputEnd}, repartition ${repartitionDone}/${repartitionEnd})`;
    }
  }
}

/** The group's committed offsets and the end offsets of the input and the repartition topic, summed over partitions. */
async function committedAndEnd(admin: Admin, groupId: string, input: string, repartition: string | undefined) {
  const topics = repartition === undefined ? [input] : [input, repartition];
  const committedByTopic = await admin.fetchOffsets({ groupId, topics });
  const committed = (topic: string): number => sumOffsets(committedByTopic.find((t) => t.topic === topic)?.partitions ?? [], 'offset');
  return {
    inputDone: committed(input),
    inputEnd: sumOffsets(await admin.fetchTopicOffsets(input), 'high'),
    repartitionDone: repartition === undefined ? 0 : committed(repartition),
    // Both sides commit past the markers that end transactions (the consumer's position), up to the end.
    repartitionEnd: repartition === undefined ? 0 : sumOffsets(await admin.fetchTopicOffsets(repartition), 'high'),
  };
}

/** The count of each word in lines 0..count-1, split as the word count splits them. */
export function expectedCounts(count: number, lineOf: (i: number) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    for (const word of lineOf(i).toLowerCase().split(/\W+/)) if (word.length > 0) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

/** The last count of each word on a word count's `output` (UTF-8 word, 8-byte count), read to the end. */
export function lastCounts(kafka: KafkaClient, admin: Admin, output: string): Promise<Map<string, number>> {
  return lastValues(kafka, admin, output, (value) => Number(value.readBigInt64BE(0)));
}

/** The last value of each key (UTF-8) on `output`, read to the end and decoded by `decode`. */
export async function lastValues<V>(kafka: KafkaClient, admin: Admin, output: string, decode: (value: Buffer) => V): Promise<Map<string, V>> {
  const ends = new Map((await admin.fetchTopicOffsets(output)).map((p) => [p.partition, Number(p.high)]));
  const values = new Map<string, V>();
  const consumer = kafka.consumer({ groupId: `bench-check-${Date.now().toString(36)}` });
  await consumer.connect();
  try {
    const withRecords = [...ends.values()].filter((end) => end > 0).length;
    const finished = new Set<number>();
    const done = new Promise<void>((resolve) => {
      if (withRecords === 0) resolve();
      void consumer.subscribe({ topics: [output], fromBeginning: true }).then(() =>
        consumer.run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) values.set(m.key!.toString('utf8'), decode(m.value!));
            // The last offset counts transaction markers too (exactly-once output ends with one).
            if (Number(batch.lastOffset()) + 1 >= ends.get(batch.partition)!) finished.add(batch.partition);
            if (finished.size === withRecords) resolve();
          },
        }),
      );
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${output} was not read to its end within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
    });
    await Promise.race([done, timedOut]).finally(() => clearTimeout(timer));
  } finally {
    await consumer.disconnect();
  }
  return values;
}

/** Why `actual` is not `expected`, in a line; undefined when they are equal. */
export function countsDiffer(expected: ReadonlyMap<string, number>, actual: ReadonlyMap<string, number>): string | undefined {
  const wrong = [...expected].filter(([word, count]) => actual.get(word) !== count);
  const extra = [...actual.keys()].filter((word) => !expected.has(word));
  if (wrong.length === 0 && extra.length === 0) return undefined;
  const example = wrong[0] ? `${wrong[0][0]}: ${actual.get(wrong[0][0]) ?? 'none'} instead of ${wrong[0][1]}` : `${extra[0]} was never in the input`;
  return `the output's counts are wrong: ${wrong.length} of ${expected.size} words differ, ${extra.length} words unknown (${example})`;
}

/** Sum over partitions; kafkajs reports an uncommitted partition as offset -1. */
export function sumOffsets(partitions: readonly { offset?: string; high?: string; low?: string }[], field: 'offset' | 'high' | 'low'): number {
  return partitions.reduce((n, p) => n + Math.max(0, Number(p[field])), 0);
}

export function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
