/** Keys and values the store benchmarks fill a key-value store with (bench/queries/topology.ts keeps each one). */
import { createProducer, type KafkaClient } from '../../src/streams/kafka';

const PRODUCE_BATCH = 10_000;

export const keyOf = (i: number): string => `k-${String(i).padStart(6, '0')}`;
export const valueOf = (i: number): string => `value-${i}-${'x'.repeat(16)}`;

/** Produces keys 0..keys-1 with their values to `topic`, as fast as the broker takes them. */
export async function produceKeys(kafka: KafkaClient, topic: string, keys: number): Promise<void> {
  const producer = createProducer(kafka);
  await producer.connect();
  for (let start = 0; start < keys; start += PRODUCE_BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(keys, start + PRODUCE_BATCH); i++) messages.push({ key: keyOf(i), value: valueOf(i) });
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
}
