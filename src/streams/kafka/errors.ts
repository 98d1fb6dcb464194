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
