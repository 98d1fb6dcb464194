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

  /** Runs the processor; an error from user code reaches the caller once, naming the node that failed. */
  process(record: StreamRecord<unknown, unknown>): void {
    try {
      this.processor.process(record);
    } catch (error) {
      throw wrapNodeError(error, this.name, this.taskId);
    }
  }
}

export function wrapNodeError(error: unknown, node: string, taskId: string): Error {
  if (error instanceof ProcessorException) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ProcessorException(node, taskId, detail, { cause: error });
}
