import { concatIterables, mapIterable, OpenIterators } from './store-iterators';

/** A source that records whether its cleanup ran, as an LMDB range does when it releases its cursor. */
function source(values: number[], released: string[], name: string): Generator<number, void, undefined> {
  return (function* () {
    try {
      yield* values;
    } finally {
      released.push(name);
    }
  })();
}

describe('OpenIterators', () => {
  it('releases the source when the caller breaks out of for...of, and tells when none is open', () => {
    const released: string[] = [];
    const idle = jest.fn();
    const iterators = new OpenIterators(idle);
    const iterator = iterators.track(mapIterable(source([1, 2, 3], released, 'a'), (n) => n * 10));
    expect(iterators.count).toBe(1);
    for (const value of iterator) {
      expect(value).toBe(10);
      break;
    }
    expect(released).toEqual(['a']);
    expect(iterators.count).toBe(0);
    expect(idle).toHaveBeenCalledTimes(1);
    expect(iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('releases on close(), on exhaustion and on closeAll(), once each', () => {
    const released: string[] = [];
    const iterators = new OpenIterators(() => undefined);
    const closed = iterators.track(source([1], released, 'closed'));
    closed.next();
    closed.close();
    closed.close();
    const exhausted = iterators.track(source([1], released, 'exhausted'));
    expect([...exhausted]).toEqual([1]);
    const first = iterators.track(source([1, 2], released, 'first'));
    const second = iterators.track(source([1, 2], released, 'second'));
    first.next();
    second.next();
    iterators.closeAll();
    expect(released).toEqual(['closed', 'exhausted', 'first', 'second']);
    expect(iterators.count).toBe(0);
  });

  it('opens concatenated sources one at a time and releases the current one on close', () => {
    const released: string[] = [];
    const opened: string[] = [];
    const open = (name: string, values: number[]) => () => {
      opened.push(name);
      return source(values, released, name);
    };
    const iterator = new OpenIterators(() => undefined).track(concatIterables([open('x', [1]), open('y', [2, 3]), open('z', [4])]));
    expect(iterator.next().value).toBe(1);
    expect(opened).toEqual(['x']);
    expect(iterator.next().value).toBe(2);
    iterator.close();
    expect(opened).toEqual(['x', 'y']);
    expect(released).toEqual(['x', 'y']);
  });
});
