import type { StoreIterator } from './store';

/** An iterator handed to a caller: closes its source once, when exhausted, on `return()`, or on `close()`. */
class TrackedIterator<T> implements StoreIterator<T> {
  private closed = false;

  constructor(
    private readonly source: Iterator<T>,
    private readonly release: (iterator: TrackedIterator<T>) => void,
  ) {}

  next(): IteratorResult<T> {
    if (this.closed) return { done: true, value: undefined };
    let result: IteratorResult<T>;
    try {
      result = this.source.next();
    } catch (error) {
      this.close();
      throw error;
    }
    if (result.done) this.close();
    return result;
  }

  /** Called by `for ... of` when the loop ends early. */
  return(): IteratorResult<T> {
    this.close();
    return { done: true, value: undefined };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.source.return?.();
    this.release(this);
  }

  [Symbol.iterator](): this {
    return this;
  }
}

/**
 * The iterators a store has handed out and that are still open. Closing the store closes them (an LMDB cursor must
 * not outlive its environment), and segmented stores wait until none is open before dropping expired segments.
 */
export class OpenIterators {
  private readonly open = new Set<TrackedIterator<unknown>>();

  /** `onIdle` runs whenever the last open iterator closes. */
  constructor(private readonly onIdle: () => void) {}

  get count(): number {
    return this.open.size;
  }

  track<T>(source: Iterator<T>): StoreIterator<T> {
    const iterator = new TrackedIterator<T>(source, (closed) => {
      this.open.delete(closed as TrackedIterator<unknown>);
      if (this.open.size === 0) this.onIdle();
    });
    this.open.add(iterator as TrackedIterator<unknown>);
    return iterator;
  }

  closeAll(): void {
    for (const iterator of [...this.open]) iterator.close();
  }
}

/** Lazily maps a source; returning the result returns the source (`for ... of` closes what it iterates). */
export function* mapIterable<A, B>(source: Iterable<A>, map: (item: A) => B): Generator<B, void, undefined> {
  for (const item of source) yield map(item);
}

/** Lazily concatenates sources made on demand, so that a source is only opened when the previous one is done. */
export function* concatIterables<A>(sources: Iterable<() => Iterable<A>>): Generator<A, void, undefined> {
  for (const open of sources) yield* open();
}
