import type { ProcessorContext } from '../../processor/processor';

/**
 * What the runtime's context offers the DSL's own processors beyond the public API: reporting records they
 * drop (counted as dropped records), and a hook run before each commit (record caches flush there).
 */
export interface DroppingContext {
  recordDropped(reason: string): void;
  onCommit(flush: () => void): void;
}

export function dropRecord(context: ProcessorContext<unknown, unknown>, reason: string): void {
  (context as unknown as Partial<DroppingContext>).recordDropped?.(reason);
}

/** Registers a flush to run (as the registering node) before each commit; a no-op outside the runtime. */
export function onCommit(context: ProcessorContext<unknown, unknown>, flush: () => void): void {
  (context as unknown as Partial<DroppingContext>).onCommit?.(flush);
}

/** Null or undefined: a key or value that Kafka Streams' operations skip (and count as dropped). */
export function isNull(x: unknown): x is null | undefined {
  return x === null || x === undefined;
}
