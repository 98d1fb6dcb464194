import { SerializationException, SluiceError, StreamsException } from '../../errors';
import type { RecordMetadata, StreamRecord } from '../processor/record';
import type { ConsumedRecord } from './consumed-record';
import { asError, type ConsumedErrorContext, deadLetterRecord, type HandlerResponse } from './exception-handlers';
import type { ProcessorNode } from './processor-node';
import type { TaskEnvironment } from './task-environment';

/** A handler's answer; a handler that throws fails the thread, as in Kafka Streams. */
function ask(kind: string, handler: () => HandlerResponse): HandlerResponse {
  try {
    return handler();
  } catch (error) {
    throw new StreamsException(`the ${kind} exception handler threw: ${asError(error).message}`, { cause: error });
  }
}

/**
 * What a task does about records that fail: asks the deserialization and processing exception handlers whether
 * they are skipped, counts the records it drops, and sends those a handler skipped to the dead-letter queue.
 */
export class TaskErrorHandling {
  /** Records dropped since the task was created (Kafka Streams' `dropped-records`). */
  droppedRecords = 0;

  constructor(
    private readonly taskName: string,
    private readonly env: TaskEnvironment,
  ) {}

  /** A record its source cannot deserialize: skipped when the handler says so, else it fails the task. */
  deserializationFailed(consumed: ConsumedRecord, sourceNode: string, error: unknown): void {
    const reason = `cannot deserialize the record at ${consumed.topic}-${consumed.partition}@${consumed.offset}`;
    const cause = asError(error);
    const context = this.errorContext(consumed, sourceNode, consumed.timestamp);
    if (ask('deserialization', () => this.env.exceptionHandlers.deserialization(context, cause)) !== 'CONTINUE') {
      throw new SerializationException(`${reason}: ${cause.message}`, { cause: error });
    }
    this.skip(reason, context, cause);
  }

  /**
   * Whether the record a node's processor threw on is skipped at that node: the processing handler's choice, asked
   * only about errors of user code while a consumed record is processed (punctuations: below; not cache flushes, and
   * not errors Sluice raises itself, such as a failed send).
   */
  processingFailed(consumed: ConsumedRecord | undefined, node: ProcessorNode, record: StreamRecord<unknown, unknown>, error: unknown): boolean {
    if (consumed === undefined || error instanceof SluiceError) return false;
    const cause = asError(error);
    const context = this.errorContext(consumed, node.name, record.timestamp);
    if (ask('processing', () => this.env.exceptionHandlers.processing(context, record, cause)) !== 'CONTINUE') return false;
    this.skip(`processor '${node.name}' failed on the record at ${consumed.topic}-${consumed.partition}@${consumed.offset}: ${cause.message}`, context, cause);
    return true;
  }

  /**
   * Whether a punctuator's error is let go: the processing handler's choice, asked with no record and no source, as
   * Kafka Streams asks it. What the punctuation was to do is dropped and counted; there is no record for a dead-letter
   * queue.
   */
  punctuationFailed(node: ProcessorNode, timestamp: number, error: unknown): boolean {
    if (error instanceof SluiceError) return false;
    const cause = asError(error);
    const context = { taskId: this.taskName, processorNodeId: node.name, topic: null, partition: -1, offset: -1, timestamp, headers: {}, sourceRawKey: null, sourceRawValue: null };
    if (ask('processing', () => this.env.exceptionHandlers.processing(context, null, cause)) !== 'CONTINUE') return false;
    this.drop(`punctuator of '${node.name}' failed at ${timestamp}: ${cause.message}`, undefined, cause);
    return true;
  }

  /** Counts a skipped record and reports it. */
  drop(reason: string, record: RecordMetadata | undefined, error?: unknown): void {
    this.droppedRecords++;
    this.env.onDropped?.(reason, record, error);
  }

  private errorContext(consumed: ConsumedRecord, processorNodeId: string, timestamp: number): ConsumedErrorContext {
    return {
      taskId: this.taskName,
      processorNodeId,
      topic: consumed.topic,
      partition: consumed.partition,
      offset: consumed.offset,
      timestamp,
      headers: consumed.headers,
      sourceRawKey: consumed.key,
      sourceRawValue: consumed.value,
    };
  }

  /** A record a handler skipped: dropped, and sent to the dead-letter queue when there is one. */
  private skip(reason: string, context: ConsumedErrorContext, error: Error): void {
    this.drop(reason, { topic: context.topic, partition: context.partition, offset: context.offset }, error);
    const topic = this.env.deadLetterQueueTopic;
    if (topic === undefined) return;
    this.env.collector.send(deadLetterRecord(topic, context, error));
    this.env.onDeadLetter?.();
  }
}
