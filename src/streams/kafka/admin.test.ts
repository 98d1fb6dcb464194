import { KafkaJSProtocolError } from 'kafkajs';
import { createTopics } from './admin';
import type { KafkaAdmin } from './types';

/** kafkajs' error as its Metadata response parser throws it. */
function unknownTopic(): Error {
  const cause = Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3, retriable: true });
  return new KafkaJSProtocolError(cause);
}

/** A KRaft broker answers its own new topic as unknown for a moment, then without leaders, then ready. */
function brokerCatchingUp(answers: ('unknown' | 'no-leader' | 'ready')[]) {
  const calls = { createTopics: [] as unknown[], metadata: 0 };
  const admin = {
    listTopics: async () => [],
    createTopics: async (request: unknown) => {
      calls.createTopics.push(request);
      return true;
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      const answer = answers[Math.min(calls.metadata++, answers.length - 1)];
      if (answer === 'unknown') throw unknownTopic();
      const leader = answer === 'ready' ? 1 : -1;
      return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader, replicas: [1], isr: [1], partitionErrorCode: 0, offlineReplicas: [] }] })) };
    },
  } as unknown as KafkaAdmin;
  return { admin, calls };
}

describe('createTopics', () => {
  it('waits through a broker that does not know its new topic yet, then has no leader, until every partition has one', async () => {
    const { admin, calls } = brokerCatchingUp(['unknown', 'unknown', 'no-leader', 'ready']);
    await expect(createTopics(admin, [{ name: 'fresh', partitions: 1 }])).resolves.toEqual(['fresh']);
    expect(calls.metadata).toBe(4);
    expect(calls.createTopics).toEqual([expect.objectContaining({ waitForLeaders: false, topics: [expect.objectContaining({ topic: 'fresh', numPartitions: 1 })] })]);
  });

  it('gives up with a clear error when the topic never gets its leaders', async () => {
    const { admin } = brokerCatchingUp(['unknown']);
    await expect(createTopics(admin, [{ name: 'never' }], { timeoutMs: 250 })).rejects.toThrow('Timed out after 250 ms waiting for leaders of never');
  });
});
