import type { ProcessorContext } from '../../processor/processor';

/** Context of the runtime's own processors: they may report records they drop (counted as dropped records). */
export interface DroppingContext {
  recordDropped(reason: string): void;
}

export function dropRecord(context: ProcessorContext<unknown, unknown>, reason: string): void {
  (context as unknown as Partial<DroppingContext>).recordDropped?.(reason);
}
