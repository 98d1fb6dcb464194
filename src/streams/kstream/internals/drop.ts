import { IllegalState } from '../../../errors';
import type { ProcessorContext } from '../../processor/processor';
import type { Serde } from '../../serdes/serde';

/**
 * What the runtime's context (Kafka Streams' `InternalProcessorContext`) offers the DSL's own processors beyond the
 * public API: reporting records they drop (counted as dropped records), and running code later as the node that
 * asks (cache flushes forward from it).
 */
export interface DslRuntimeContext {
  recordDropped(reason: string): void;
  asCurrentNode(): (fn: () => void) => void;
  defaultSerdes(): { key: Serde<unknown>; value: Serde<unknown> };
}

function runtimeContext(context: ProcessorContext<unknown, unknown>): DslRuntimeContext {
  const runtime = context as unknown as Partial<DslRuntimeContext>;
  if (typeof runtime.recordDropped !== 'function' || typeof runtime.asCurrentNode !== 'function' || typeof runtime.defaultSerdes !== 'function') {
    throw new IllegalState("the DSL's processors run in a Sluice task: this context is not one");
  }
  return runtime as DslRuntimeContext;
}

export function dropRecord(context: ProcessorContext<unknown, unknown>, reason: string): void {
  runtimeContext(context).recordDropped(reason);
}

/** Runs a function later as the node that calls this now. */
export function asCurrentNode(context: ProcessorContext<unknown, unknown>): (fn: () => void) => void {
  return runtimeContext(context).asCurrentNode();
}

/** The application's default key and value serdes (`default.key.serde`, `default.value.serde`). */
export function defaultSerdes(context: ProcessorContext<unknown, unknown>): { key: Serde<unknown>; value: Serde<unknown> } {
  return runtimeContext(context).defaultSerdes();
}

/** Null or undefined: a key or value that Kafka Streams' operations skip (and count as dropped). */
export function isNull(x: unknown): x is null | undefined {
  return x === null || x === undefined;
}
