import { KafkaJSConnectionError, KafkaJSGroupCoordinatorNotFound, KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSSASLAuthenticationError } from 'kafkajs';
import { ProcessorException, TaskMigrated } from '../../errors';
import { isGroupMembershipError, isTransactionLostError, isTransientKafkaError, kafkaSecurityFailure } from './errors';

describe('isGroupMembershipError', () => {
  it('recognises a refused commit, bare or wrapped by kafkajs', () => {
    const bare = Object.assign(new Error('Specified group generation id is not valid'), { type: 'ILLEGAL_GENERATION' });
    expect(isGroupMembershipError(bare)).toBe(true);
    expect(isGroupMembershipError(new Error('wrapper', { cause: bare }))).toBe(true);
    expect(isGroupMembershipError(Object.assign(new Error('retry wrapper'), { originalError: bare }))).toBe(true);
  });

  it('recognises a commit refused while kafkajs restarts its crashed consumer', () => {
    // What kafkajs' commitOffsets throws between a crash of its consumer and the consumer's next run.
    expect(isGroupMembershipError(new KafkaJSNonRetriableError('Consumer group was not initialized, consumer#run must be called first'))).toBe(true);
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

  it('recognises a coordinator not found because no broker answered (a commit while a lone broker restarts)', () => {
    // The typings omit the message kafkajs passes (cluster/index.js, findGroupCoordinatorMetadata).
    const NotFound = KafkaJSGroupCoordinatorNotFound as unknown as new (message: string) => Error;
    expect(isTransientKafkaError(new NotFound('Failed to find group coordinator'))).toBe(true);
    // As a transaction's offset commit (eosManager.sendOffsets) saw it in CI: kafkajs' retrier gave up on it.
    const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: Error }) => Error;
    const notFound = new NotFound('Failed to find group coordinator');
    expect(isTransientKafkaError(new NonRetriable(notFound, { cause: notFound }))).toBe(true);
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

describe('kafkaSecurityFailure', () => {
  const untrusted = new KafkaJSConnectionError('Connection error: self-signed certificate in certificate chain', {
    broker: '127.0.0.1:9093',
    code: 'SELF_SIGNED_CERT_IN_CHAIN',
  });

  it('sees an untrusted certificate behind kafkajs retries, and says what to fix', () => {
    const failure = kafkaSecurityFailure(new KafkaJSNumberOfRetriesExceeded(untrusted, { retryCount: 5, retryTime: 1000 }));
    expect(failure?.exception).toBe('KafkaTlsFailed');
    expect(failure?.message).toBe(
      "TLS connection to Kafka failed: the broker's certificate is not signed by a CA Sluice trusts (ssl.truststore.location or ssl.truststore.certificates); 127.0.0.1:9093: SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain",
    );
    // Not retried for task.timeout.ms as a lost connection is.
    expect(isTransientKafkaError(new KafkaJSNumberOfRetriesExceeded(untrusted, { retryCount: 5, retryTime: 1000 }))).toBe(false);
  });

  it.each([
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'not for the host name'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'not signed by a CA Sluice trusts'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'not signed by a CA Sluice trusts'],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', "refused Sluice's client certificate"],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'does not speak TLS'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'the TLS handshake failed'],
  ])('classifies %s', (code, hint) => {
    expect(kafkaSecurityFailure(new KafkaJSConnectionError('Connection error: x', { broker: 'b:1', code }))?.message).toContain(hint);
  });

  it('sees a refused SASL login, and leaves network faults transient', () => {
    const SaslError = KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
    const refused = new SaslError('SASL SCRAM SHA512 authentication failed: invalid credentials');
    const NonRetriable = KafkaJSNonRetriableError as unknown as new (e: Error, options: { cause: Error }) => Error;
    expect(kafkaSecurityFailure(new NonRetriable(refused, { cause: refused }))?.exception).toBe('KafkaAuthenticationFailed');
    expect(isTransientKafkaError(refused)).toBe(false);
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ERR_TLS_HANDSHAKE_TIMEOUT']) {
      const lost = new KafkaJSConnectionError('Connection error: lost', { broker: 'b:1', code });
      expect(kafkaSecurityFailure(lost)).toBeUndefined();
      expect(isTransientKafkaError(lost)).toBe(true);
    }
  });
});

describe('isTransactionLostError', () => {
  const NonRetriable = KafkaJSNonRetriableError as unknown as new (message: string) => Error;

  it('sees a fenced producer, a failed commit and the producer refusing the next transaction, wrapped or not', () => {
    const fenced = Object.assign(new Error('fenced'), { type: 'PRODUCER_FENCED' });
    const stuck = new NonRetriable('Transaction state exception: Cannot call "beginTransaction" in state "COMMITTING"');
    const migrated = new TaskMigrated('0_1', 'its commit failed (Connection error)');
    for (const error of [fenced, stuck, migrated]) {
      expect(isTransactionLostError(error)).toBe(true);
      expect(isTransactionLostError(new ProcessorException('sink', '0_1', 'failed', { cause: error }))).toBe(true);
    }
  });

  it('leaves other failures of kafkajs alone', () => {
    expect(isTransactionLostError(new NonRetriable('Cannot continue to use transaction once ended'))).toBe(false);
    expect(isTransactionLostError(Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE' }))).toBe(false);
  });
});
