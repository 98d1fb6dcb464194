import { createTopics, describeTopicConfigs, describeTopics, fetchTopicOffsets, listTopics, partitionForKey } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, consumeUntil, KafkaTestClients, uniqueName } from '../support/kafka';

jest.setTimeout(BROKER_TEST_TIMEOUT_MS);

const clients = new KafkaTestClients();
afterAll(() => clients.close());

describe('topics and records on a real broker', () => {
  it('creates a compacted topic and a 6-partition topic, and creating them again changes nothing', async () => {
    const admin = await clients.admin();
    const compacted = uniqueName('compacted');
    const wide = uniqueName('wide');

    const created = await createTopics(admin, [
      { name: compacted, partitions: 2, configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '100' } },
      { name: wide, partitions: 6 },
    ]);
    expect(created.sort()).toEqual([compacted, wide].sort());
    expect(await createTopics(admin, [{ name: compacted, partitions: 2 }, { name: wide, partitions: 6 }])).toEqual([]);

    expect(await listTopics(admin)).toEqual(expect.arrayContaining([compacted, wide]));
    const configs = await describeTopicConfigs(admin, compacted);
    expect(configs['cleanup.policy']).toBe('compact');
    expect(configs['min.compaction.lag.ms']).toBe('100');
    expect((await describeTopicConfigs(admin, wide))['cleanup.policy']).toBe('delete');

    const [compactedTopic, wideTopic] = await describeTopics(admin, [compacted, wide]);
    expect(compactedTopic!.partitions.map((p) => p.partition)).toEqual([0, 1]);
    expect(wideTopic!.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(wideTopic!.partitions.every((p) => p.leader >= 0 && p.replicas.length === 1)).toBe(true);
  });

  it('delivers 10 000 keyed records, all of them, in order within each partition', async () => {
    const admin = await clients.admin();
    const topic = uniqueName('records');
    await createTopics(admin, [{ name: topic, partitions: 6 }]);

    const total = 10_000;
    const sent = Array.from({ length: total }, (_, i) => ({ key: `key-${i % 257}`, value: `${i}` }));
    const producer = await clients.producer();
    for (let start = 0; start < total; start += 1000) {
      await producer.send({ topic, messages: sent.slice(start, start + 1000) });
    }

    const offsets = await fetchTopicOffsets(admin, topic);
    expect(offsets.map((o) => o.latest - o.earliest).reduce((a, b) => a + b, 0)).toBe(total);

    const records = await consumeUntil(await clients.consumer({ groupId: uniqueName('records') }), topic, total, 60_000);
    expect(records).toHaveLength(total);
    expect(new Set(records.map((r) => r.value)).size).toBe(total);

    // Each partition holds exactly the records whose key hashes to it, in the order they were sent, and the
    // consumer delivers them in that order.
    for (let partition = 0; partition < 6; partition++) {
      const expected = sent
        .filter((record) => partitionForKey(Buffer.from(record.key), 6) === partition)
        .map((record) => record.value);
      const got = records.filter((r) => r.partition === partition);
      expect(got.map((r) => r.value)).toEqual(expected);
      expect(got.map((r) => r.offset)).toEqual(expected.map((_, i) => i));
    }
  });
});
