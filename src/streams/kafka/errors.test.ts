import { isGroupMembershipError } from './errors';

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
