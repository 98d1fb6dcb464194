/**
 * Kafka errors that the runtime treats as a lost group membership rather than a fault: a commit refused
 * because the group is rebalancing or moved on to a new generation. The tasks are reassigned; the uncommitted
 * input is re-read by their next owner (at-least-once).
 */
const MEMBERSHIP_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

export function isGroupMembershipError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const type = (error as { type?: unknown }).type;
  if (typeof type === 'string' && MEMBERSHIP_ERRORS.has(type)) return true;
  // kafkajs wraps errors it gives up on: the Kafka error is the `cause` (or `originalError`) of the wrapper.
  const wrapped = error as { cause?: unknown; originalError?: unknown };
  return isGroupMembershipError(wrapped.cause) || isGroupMembershipError(wrapped.originalError);
}

/**
 * Failures that go away when the broker is back: a refused or dropped connection, a request timeout, a leader
 * moving. kafkajs retries those for a while and then gives up with a wrapper (`KafkaJSNumberOfRetriesExceeded`,
 * or a non-retriable error whose root cause is retriable); the runtime keeps retrying them within
 * `task.timeout.ms`, as Kafka Streams does, instead of failing the instance.
 */
export function isTransientKafkaError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { name?: unknown }).name === 'KafkaJSNumberOfRetriesExceeded') return true;
  let root: unknown = error;
  for (let depth = 0; depth < 10; depth++) {
    const next = (root as { cause?: unknown; originalError?: unknown }).cause ?? (root as { originalError?: unknown }).originalError;
    if (typeof next !== 'object' || next === null) break;
    root = next;
  }
  return (root as { retriable?: unknown }).retriable === true;
}
