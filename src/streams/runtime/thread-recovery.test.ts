import { StreamsException } from '../../errors';
import { ThreadRecovery } from './thread-recovery';

/** As kafkajs reports a refused connection after its retries, wrapped by the record collector. */
const brokerGone = new StreamsException('sending records to Kafka failed', {
  cause: Object.assign(new Error('Connection error: connect ECONNREFUSED'), { name: 'KafkaJSConnectionError', retriable: true }),
});
const fenced = Object.assign(new Error('There is a newer producer with the same transactionalId'), { type: 'INVALID_PRODUCER_EPOCH', retriable: false });
const bug = new StreamsException('Processor failed: TypeError');

describe('ThreadRecovery', () => {
  let now = 0;
  const recovery = (exactlyOnce: boolean) => new ThreadRecovery({ exactlyOnce, taskTimeoutMs: 1000, clock: () => now });

  beforeEach(() => {
    now = 10_000;
  });

  it('replaces an exactly-once thread that lost the broker or its transaction', () => {
    const r = recovery(true);
    expect(r.recoverable(brokerGone)).toBe(true);
    expect(r.recoverable(fenced)).toBe(true);
  });

  it('never replaces a thread that failed for another reason, or one under at-least-once (its sends were retried)', () => {
    expect(recovery(true).recoverable(bug)).toBe(false);
    expect(recovery(false).recoverable(brokerGone)).toBe(false);
  });

  it('gives up task.timeout.ms after the first failure, and starts counting afresh once the threads ran again', () => {
    const r = recovery(true);
    expect(r.recoverable(brokerGone)).toBe(true);
    now += 999;
    expect(r.recoverable(brokerGone)).toBe(true);
    now += 1;
    expect(r.recoverable(brokerGone)).toBe(false);
    r.recovered();
    expect(r.recoverable(brokerGone)).toBe(true);
  });
});
