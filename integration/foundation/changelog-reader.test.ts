/**
 * The changelog reader (restores, global stores, standbys) within a memory budget's share on a real broker: each round
 * of fetches brings no more than its share (Kafka returns a first batch larger than asked anyway), and reading on
 * round after round still reaches the end with every record, in order.
 */
import { ChangelogReader, createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, uniqueName } from '../support/kafka';

const KiB = 1024;
const RECORDS = 2_000;
const VALUE = 'v'.repeat(KiB);
/** Records per produce request: one batch of about 100 KiB each. */
const PER_SEND = 100;
const SHARE = 256 * KiB;

it(
  'reads a 2 MB partition in rounds no larger than its share of the budget, to the end and in order',
  async () => {
    const clients = new KafkaTestClients();
    const topic = uniqueName('reader-share');
    const reader = new ChangelogReader(clients.kafka, { readCommitted: false, maxBytes: 50 * KiB * KiB, maxPartitionBytes: 50 * KiB * KiB, maxWaitMs: 100 });
    try {
      await createTopics(await clients.admin(), [{ name: topic, partitions: 1 }]);
      const producer = await clients.producer();
      for (let from = 0; from < RECORDS; from += PER_SEND) {
        await producer.send({ topic, messages: Array.from({ length: PER_SEND }, (_, i) => ({ key: `k${from + i}`, value: VALUE })) });
      }
      reader.limitFetch(SHARE);
      expect(reader.fetchBytes).toBe(SHARE);

      const keys: string[] = [];
      const roundBytes: number[] = [];
      let offset = 0;
      while (offset < RECORDS) {
        const [partition] = await reader.fetch([{ topic, partition: 0, offset }]);
        let bytes = 0;
        for (const record of partition!.records) {
          keys.push(record.key.toString());
          bytes += record.value?.length ?? 0;
        }
        if (bytes > 0) roundBytes.push(bytes);
        offset = partition!.nextOffset;
      }
      expect(keys).toEqual(Array.from({ length: RECORDS }, (_, i) => `k${i}`));
      // Within the share and one batch past it: many rounds, not the one a 50 MiB fetch would be.
      expect(Math.max(...roundBytes)).toBeLessThanOrEqual(SHARE + PER_SEND * KiB + 16 * KiB);
      expect(roundBytes.length).toBeGreaterThanOrEqual(Math.floor((RECORDS * KiB) / (SHARE + PER_SEND * KiB)));
    } finally {
      await reader.close();
      await clients.close();
    }
  },
  BROKER_TEST_TIMEOUT_MS,
);
