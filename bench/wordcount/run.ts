/**
 * Word-count benchmark: produces N lines (default 1 000 000) of a fixed corpus to a 4-partition topic, runs
 * Sluice's word count until every line is processed, and prints records/s, end-to-end time and peak RSS.
 * Usage: npx ts-node-free: `npm run bench:wordcount -- [--lines N] [--threads T]`. Prints figures only.
 */
import { parseArgs } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { StreamsInstance } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import { createKafkaClient, createProducer } from '../../src/streams/kafka/client';
import { provideBroker } from '../../src/host/broker/provide-broker';
import { corpusLine } from './corpus';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { lines: { type: 'string', default: '1000000' }, threads: { type: 'string', default: '1' } } });
  const lines = Number(values.lines);
  const threads = Number(values.threads);
  const broker = await provideBroker({ log: (l) => process.stderr.write(`${l}\n`) });
  const suffix = Date.now().toString(36);
  const input = `bench-wc-in-${suffix}`;
  const output = `bench-wc-out-${suffix}`;
  const kafka = createKafkaClient({ bootstrapServers: broker.bootstrapServers.split(','), clientId: 'bench' });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: input, numPartitions: 4 }, { topic: output, numPartitions: 4 }] });
  const producer = createProducer(kafka);
  await producer.connect();
  const produceStart = Date.now();
  for (let start = 0; start < lines; start += 10_000) {
    const messages = [];
    for (let i = start; i < Math.min(lines, start + 10_000); i++) messages.push({ key: `line-${i}`, value: corpusLine(i) });
    await producer.send({ topic: input, messages });
  }
  process.stdout.write(`produced ${lines} lines in ${((Date.now() - produceStart) / 1000).toFixed(1)} s\n`);

  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-'));
  const applicationId = `bench-wc-${suffix}`;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const instance = new StreamsInstance(
    wordCountTopology(input, output),
    {
      'application.id': applicationId,
      'bootstrap.servers': broker.bootstrapServers,
      'state.dir': stateDir,
      'num.stream.threads': threads,
      'commit.interval.ms': 1000,
    },
    { logger: pino({ level: 'warn' }) },
  );
  const start = Date.now();
  await instance.start();
  // Done when the group has committed the end of the input and of the repartition topic (every word counted).
  const repartition = `${applicationId}-count-repartition`;
  const sum = (list: { offset?: string; high?: string }[], field: 'offset' | 'high'): number =>
    list.reduce((n, p) => n + Math.max(0, Number(p[field])), 0);
  for (let tick = 0; ; tick++) {
    await new Promise((r) => setTimeout(r, 250));
    if (instance.state === 'ERROR') throw instance.lastError;
    const committed = await admin.fetchOffsets({ groupId: applicationId, topics: [input, repartition] });
    const inputDone = sum(committed.find((t) => t.topic === input)?.partitions ?? [], 'offset');
    const repartitionDone = sum(committed.find((t) => t.topic === repartition)?.partitions ?? [], 'offset');
    const inputEnd = sum(await admin.fetchTopicOffsets(input), 'high');
    const repartitionEnd = sum(await admin.fetchTopicOffsets(repartition), 'high');
    if (process.env.BENCH_DEBUG && tick % 8 === 0) {
      process.stderr.write(`input ${inputDone}/${inputEnd} repartition ${repartitionDone}/${repartitionEnd} ${instance.state}\n`);
    }
    if (inputDone >= inputEnd && repartitionEnd > 0 && repartitionDone >= repartitionEnd) break;
  }
  const seconds = (Date.now() - start) / 1000;
  clearInterval(sampler);
  await instance.close();
  process.stdout.write(
    [
      `sluice word count, ${threads} thread(s): ${lines} lines in ${seconds.toFixed(1)} s`,
      `  input records/s: ${Math.round(lines / seconds)}`,
      `  peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB`,
    ].join('\n') + '\n',
  );
  await producer.disconnect();
  await admin.disconnect();
  fs.rmSync(stateDir, { recursive: true, force: true });
  await broker.stop();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
