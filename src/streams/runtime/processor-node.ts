import { ProcessorException } from '../../errors';
import type { Serde } from '../serdes/serde';
import type { Processor } from '../processor/processor';
import type { StreamRecord } from '../processor/record';
import type { NodeDefinition } from '../topology/node-definitions';

/** An instantiated node of one task's processor graph. */
export class ProcessorNode {
  readonly children: ProcessorNode[] = [];
  readonly childByName = new Map<string, ProcessorNode>();
  /** Sources: the resolved serdes of the consumed records. */
  keySerde: Serde<unknown> | undefined;
  valueSerde: Serde<unknown> | undefined;
  /** Stores this node may read and write. */
  readonly stores: ReadonlySet<string>;
  /** Asked about an error this node's processor threw: true when the record is skipped here (processing.exception.handler). */
  skipFailed: ((node: ProcessorNode, record: StreamRecord<unknown, unknown>, error: unknown) => boolean) | undefined;

  constructor(
    readonly definition: NodeDefinition,
    readonly taskId: string,
    /** The user's (or the DSL's) processor; sources and sinks have their own. */
    readonly processor: Processor<unknown, unknown, unknown, unknown>,
  ) {
    this.stores = new Set(definition.kind === 'processor' ? definition.stores : []);
  }

  get name(): string {
    return this.definition.name;
  }

  addChild(child: ProcessorNode): void {
    this.children.push(child);
    this.childByName.set(child.name, child);
  }

  /**
   * Runs the processor; an error from user code is offered to the processing handler where it was thrown (as Kafka
   * Streams does, so that a skip there lets the node's siblings go on), and otherwise reaches the caller once, naming
   * the node that failed. An error from a node below was decided there: it goes up as it is.
   */
  process(record: StreamRecord<unknown, unknown>): void {
    try {
      this.processor.process(record);
    } catch (error) {
      if (!(error instanceof ProcessorException) && this.skipFailed?.(this, record, error)) return;
      throw wrapNodeError(error, this.name, this.taskId);
    }
  }
}

export function wrapNodeError(error: unknown, node: string, taskId: string): Error {
  if (error instanceof ProcessorException) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ProcessorException(node, taskId, detail, { cause: error });
}
