import { KafkaAuthenticationFailed, KafkaTlsFailed, SluiceError, TaskMigrated } from '../../errors';

/**
 * Kafka errors that the runtime treats as a lost group membership rather than a fault: a commit refused
 * because the group is rebalancing or moved on to a new generation. The tasks are reassigned; the uncommitted
 * input is re-read by their next owner (at-least-once).
 */
const MEMBERSHIP_ERRORS = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'FENCED_INSTANCE_ID',
  // A streams group's member committing at an epoch the coordinator has moved past (KIP-1071).
  'FENCED_MEMBER_EPOCH',
  'STALE_MEMBER_EPOCH',
]);

/** kafkajs' refusal of a commit while its consumer restarts after a crash (its group is set up again by `run`). */
const CONSUMER_RESTARTING = 'Consumer group was not initialized';

export function isGroupMembershipError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const type = (error as { type?: unknown }).type;
  if (typeof type === 'string' && MEMBERSHIP_ERRORS.has(type)) return true;
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && message.startsWith(CONSUMER_RESTARTING)) return true;
  // kafkajs wraps errors it gives up on: the Kafka error is the `cause` (or `originalError`) of the wrapper.
  const wrapped = error as { cause?: unknown; originalError?: unknown };
  return isGroupMembershipError(wrapped.cause) || isGroupMembershipError(wrapped.originalError);
}

/**
 * Errors that end an exactly-once producer's transaction without ending the application: the coordinator aborted it
 * (a broker outage longer than transaction.timeout.ms), or a newer producer of the same transactional id fenced it
 * (the task moved), or a commit that failed midway left it in an unknown state (TaskMigrated, or kafkajs refusing
 * the next transaction in the state the failed one left). Kafka Streams closes such tasks dirty and re-joins
 * (TaskMigratedException).
 */
const TRANSACTION_LOST_ERRORS = new Set(['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED', 'INVALID_TXN_STATE', 'INVALID_PRODUCER_ID_MAPPING', 'TRANSACTIONAL_ID_NOT_FOUND']);

export function isTransactionLostError(error: unknown): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 10; depth++) {
    if (cause instanceof TaskMigrated || isTransactionStateError(cause)) return true;
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && TRANSACTION_LOST_ERRORS.has(type)) return true;
    cause = (cause as { cause?: unknown }).cause ?? (cause as { originalError?: unknown }).originalError;
  }
  return false;
}

/**
 * kafkajs errors marked not retriable that a broker coming back cures: its retries given up, and no coordinator
 * found because no broker answered (kafkajs raises the latter, without a cause, when every broker it knows of
 * refuses the connection, as a transaction's offset commit does while a lone broker restarts).
 */
const TRANSIENT_WRAPPERS = new Set(['KafkaJSNumberOfRetriesExceeded', 'KafkaJSGroupCoordinatorNotFound']);

/**
 * Failures that go away when the broker is back: a refused or dropped connection, a request timeout, a leader
 * moving. kafkajs retries those for a while and then gives up with a wrapper (`KafkaJSNumberOfRetriesExceeded`,
 * or a non-retriable error whose root cause is retriable); the runtime keeps retrying them within
 * `task.timeout.ms`, as Kafka Streams does, instead of failing the instance.
 */
export function isTransientKafkaError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // A refused login or an untrusted certificate looks like a lost connection to kafkajs, but no retry cures it.
  if (kafkaSecurityFailure(error) !== undefined) return false;
  // Anywhere in the chain: kafkajs' retrier wraps what it gave up on (a coordinator not found, too) in a
  // non-retriable error.
  let root: unknown = error;
  for (let depth = 0; depth < 10; depth++) {
    if (TRANSIENT_WRAPPERS.has(String((root as { name?: unknown }).name))) return true;
    const next = (root as { cause?: unknown; originalError?: unknown }).cause ?? (root as { originalError?: unknown }).originalError;
    if (typeof next !== 'object' || next === null) break;
    root = next;
  }
  return (root as { retriable?: unknown }).retriable === true;
}

/** Node's certificate verification failures (OpenSSL's X509 verify codes as Node names them). */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_SIGNATURE_FAILURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_CERT_ALTNAME_FORMAT',
]);

/**
 * Whether a socket error code is a TLS failure that retrying cannot cure: the broker's certificate is not trusted or
 * not for this host, or the handshake was refused (OpenSSL's ERR_SSL_* alerts: no client certificate, an unknown CA,
 * a listener that does not speak TLS). A reset or timeout during the handshake is a network fault, not this.
 */
export function isTlsFailureCode(code: unknown): boolean {
  return typeof code === 'string' && (CERTIFICATE_CODES.has(code) || code.startsWith('ERR_SSL_'));
}

/** What a TLS failure most likely means, by its code. */
function tlsHint(code: string): string {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH' || code === 'ERR_TLS_CERT_ALTNAME_FORMAT') {
    return "the broker's certificate is not for the host name Sluice connected to (to not check it: ssl.endpoint.identification.algorithm empty)";
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return "the broker's certificate is expired or not yet valid";
  if (CERTIFICATE_CODES.has(code)) return "the broker's certificate is not signed by a CA Sluice trusts (ssl.truststore.location or ssl.truststore.certificates)";
  if (/CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|ACCESS_DENIED/.test(code)) {
    return "the broker refused Sluice's client certificate, or got none (mutual TLS: ssl.keystore.*)";
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') return 'the listener does not speak TLS (check security.protocol and the port)';
  return 'the TLS handshake failed';
}

/** The Sluice error for a TLS failure of a connection to `broker` (host:port), from the socket's error. */
export function tlsFailure(broker: string, code: string, message: string): SluiceError {
  return new KafkaTlsFailed(`${tlsHint(code)}; ${broker}: ${code}: ${message.replace(/^Connection error: /, '')}`);
}

/**
 * The security failure behind an error, as a Sluice error (KafkaAuthenticationFailed, KafkaTlsFailed), or undefined
 * when there is none: a SASL login the broker refused, or a TLS failure (isTlsFailureCode), bare or wrapped by kafkajs.
 */
export function kafkaSecurityFailure(error: unknown): SluiceError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof SluiceError && (current.exception === KafkaAuthenticationFailed.exception || current.exception === KafkaTlsFailed.exception)) return current;
    const { name, code, message, broker } = current as { name?: unknown; code?: unknown; message?: unknown; broker?: unknown };
    if (name === 'KafkaJSSASLAuthenticationError') return new KafkaAuthenticationFailed(String(message), { cause: current });
    if (isTlsFailureCode(code)) return tlsFailure(typeof broker === 'string' ? broker : 'the broker', String(code), String(message));
    current = (current as { cause?: unknown }).cause ?? (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/** The broker knows no such topic or partition (kafkajs' error, bare or inside the wrapper it gives up with). */
export function isUnknownTopicError(error: unknown): boolean {
  return hasKafkaErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION');
}

/** A new topic the broker's metadata has not caught up with yet: unknown for a moment, then without a leader. */
export function isTopicNotReadyError(error: unknown): boolean {
  return hasKafkaErrorType(error, 'UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE');
}

function hasKafkaErrorType(error: unknown, ...types: string[]): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 10; depth++) {
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && types.includes(type)) return true;
    cause = (cause as { cause?: unknown }).cause ?? (cause as { originalError?: unknown }).originalError;
  }
  return false;
}

/** kafkajs' transactional producer refusing a call in its current state (a commit or abort that failed midway). */
function isTransactionStateError(error: object): boolean {
  const message = (error as { message?: unknown }).message;
  return (error as { name?: unknown }).name === 'KafkaJSNonRetriableError' && typeof message === 'string' && message.startsWith('Transaction state exception');
}

/**
 * The broker refused records for what they are, not for the broker's state: too large for the topic (alone, or a
 * batch together), invalid, or with a timestamp out of range. Sending them again cannot succeed; sending fewer may.
 */
const RECORD_REFUSED_ERRORS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'INVALID_TIMESTAMP']);

export function isRecordRefusedError(error: unknown): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 10; depth++) {
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && RECORD_REFUSED_ERRORS.has(type)) return true;
    cause = (cause as { cause?: unknown }).cause ?? (cause as { originalError?: unknown }).originalError;
  }
  return false;
}
