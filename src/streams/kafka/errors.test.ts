import { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { isGroupMembershipError, isTransientKafkaError } from './errors';

describe('isGroupMembershipError', () => {
  it('recognises a refused commit, bare or wrapped by kafkajs', () => {
    const bare = Object.assign(new Error('Specified group generation id is not valid'), { type: 'ILLEGAL_GENERATION' });
    expect(isGroupMembershipError(bare)).toBe(true);
    expect(isGroupMembershipError(new Error('wrapper', { cause: bare }))).toBe(true);
    expect(isGroupMembershipError(Object.assign(new Error('retry wrapper'), { originalError: bare }))).toBe(true);
  });

  it('leaves other errors to fail the thread', () => {
    expect(isGroupMembershipError(Object.assign(new Error('x'), { type: 'MESSAGE_TOO_LARGE' }))).toBe(false);
    expect(isGroupMembershipError(new Error('plain'))).toBe(false);
    expect(isGroupMembershipError(undefined)).toBe(false);
  });
});

describe('isTransientKafkaError', () => {
  const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');

  it('recognises a lost connection, bare or after kafkajs gave up retrying it', () => {
    expect(isTransientKafkaError(refused)).toBe(true);
    expect(isTransientKafkaError(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 1000 }))).toBe(true);
    // How kafkajs' retrier wraps what it stops retrying (seen when a broker is down).
    const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: Error }) => Error;
    expect(isTransientKafkaError(new NonRetriable(refused, { cause: refused }))).toBe(true);
  });

  it('leaves a broker refusal that retrying cannot cure to fail the thread', () => {
    const tooLarge = new KafkaJSProtocolError(Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE', code: 10, retriable: false }));
    expect(isTransientKafkaError(tooLarge)).toBe(false);
    expect(isTransientKafkaError(new KafkaJSNonRetriableError(tooLarge))).toBe(false);
    expect(isTransientKafkaError(new KafkaJSNonRetriableError('bare'))).toBe(false);
    expect(isTransientKafkaError(new Error('plain'))).toBe(false);
    expect(isTransientKafkaError(undefined)).toBe(false);
  });
});
