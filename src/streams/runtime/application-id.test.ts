import { InvalidApplicationId } from '../../errors';
import { APPLICATION_ID_PATTERN, applicationIdProblem, checkApplicationId, MAX_APPLICATION_ID_LENGTH } from './application-id';

describe('application ids', () => {
  it.each(['word-count', 'a', 'A.b_c-9', '...', '.hidden', 'x'.repeat(MAX_APPLICATION_ID_LENGTH)])('accepts %s', (id) => {
    expect(applicationIdProblem(id)).toBeUndefined();
    expect(checkApplicationId(id)).toBe(id);
  });

  it.each([
    ['', 'empty'],
    ['.', 'names a directory'],
    ['..', 'names a directory'],
    ['../x', 'only letters'],
    ['a/b', 'only letters'],
    ['a\\b', 'only letters'],
    ['%2E%2E', 'only letters'],
    ['a b', 'only letters'],
    ['wörd', 'only letters'],
    ['x'.repeat(MAX_APPLICATION_ID_LENGTH + 1), 'longer than 100'],
  ])('refuses %j (%s)', (id, reason) => {
    expect(applicationIdProblem(id)).toContain(reason);
    expect(() => checkApplicationId(id)).toThrow(InvalidApplicationId);
  });

  it('is a 400 that quotes a long id shortened', () => {
    const error = (() => {
      try {
        return checkApplicationId('y'.repeat(5000));
      } catch (caught) {
        return caught as InstanceType<typeof InvalidApplicationId>;
      }
    })() as InstanceType<typeof InvalidApplicationId>;
    expect(error.kind).toBe('invalid');
    expect(error.exception).toBe('InvalidApplicationId');
    expect(error.message.length).toBeLessThan(300);
  });

  it('keeps internal topic names within Kafka’s 249 for names of up to 136 characters', () => {
    const longest = `${'x'.repeat(MAX_APPLICATION_ID_LENGTH)}-${'n'.repeat(136)}-repartition`;
    expect(longest.length).toBe(249);
  });

  it('has a pattern for schemas that says the same', () => {
    const pattern = new RegExp(APPLICATION_ID_PATTERN);
    const ids = ['word-count', 'a', '...', '.x', 'x.', '', '.', '..', 'a/b', 'a b', 'wörd', 'x'.repeat(100), 'x'.repeat(101), '..\n'];
    for (const id of ids) expect([id, pattern.test(id)]).toEqual([id, applicationIdProblem(id) === undefined]);
  });
});
