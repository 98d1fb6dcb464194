import type { Headers, StreamRecord } from '../processor/record';
import type { ProducedRecord } from './record-collector';

/** What a handler decides for a failed record (Kafka Streams' CONTINUE and FAIL): skip it and go on, or fail the thread. */
export type HandlerResponse = 'CONTINUE' | 'FAIL';

/** The consumed record a failure happened on, and where (Kafka Streams' `ErrorHandlerContext`). */
export interface ErrorHandlerContext {
  readonly taskId: string;
  /** The node that failed; for a deserialization failure, the source node. */
  readonly processorNodeId: string;
  /** Where the record was read; in a punctuation, which reads none: null, -1 and -1 (as in Kafka Streams). */
  readonly topic: string | null;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly headers: Headers;
  /** The consumed record's bytes, as they were read. */
  readonly sourceRawKey: Buffer | null;
  readonly sourceRawValue: Buffer | null;
}

/** The context of a failure on a consumed record: it has a source. */
export type ConsumedErrorContext = ErrorHandlerContext & { readonly topic: string };

/** `default.deserialization.exception.handler`: a consumed record whose key or value its source's serde cannot read. */
export type DeserializationExceptionHandler = (context: ErrorHandlerContext, error: Error) => HandlerResponse;

/**
 * `processing.exception.handler` (KIP-1033): a processor threw while processing a consumed record, or a punctuator
 * threw (`record` null, and no source in the context).
 */
export type ProcessingExceptionHandler = (context: ErrorHandlerContext, record: StreamRecord<unknown, unknown> | null, error: Error) => HandlerResponse;

/** `default.production.exception.handler`: the broker refused a record (too large, invalid). */
export type ProductionExceptionHandler = (context: { readonly taskId: string }, record: ProducedRecord, error: Error) => HandlerResponse;

/**
 * What the instance does when a stream thread fails (Kafka Streams' `StreamThreadExceptionResponse`): start a new
 * thread in its place, stop this node (state ERROR), or stop every node of the application (each goes to ERROR).
 */
export const THREAD_EXCEPTION_RESPONSES = ['REPLACE_THREAD', 'SHUTDOWN_CLIENT', 'SHUTDOWN_APPLICATION'] as const;
export type StreamThreadExceptionResponse = (typeof THREAD_EXCEPTION_RESPONSES)[number];

/** Kafka Streams' `StreamsUncaughtExceptionHandler`: decides for a stream thread that failed with `error`. */
export type StreamsUncaughtExceptionHandler = (error: Error) => StreamThreadExceptionResponse;

/** The handlers of an instance; StreamsInstance options override what the configuration names. */
export interface ExceptionHandlers {
  readonly deserialization: DeserializationExceptionHandler;
  readonly processing: ProcessingExceptionHandler;
  readonly production: ProductionExceptionHandler;
  /** A stream thread failed (`uncaught.exception.handler`; Kafka Streams' default: SHUTDOWN_CLIENT). */
  readonly uncaught: StreamsUncaughtExceptionHandler;
}

// The built-in handlers only decide: the runtime logs and counts every record skipped, whoever decided.
const logAndContinue = (): HandlerResponse => 'CONTINUE';
const logAndFail = (): HandlerResponse => 'FAIL';

/** The handlers a configuration key can name, by Kafka Streams' class names (Sluice adds a production handler that continues). */
export const NAMED_HANDLERS = {
  'default.deserialization.exception.handler': { LogAndContinueExceptionHandler: logAndContinue, LogAndFailExceptionHandler: logAndFail },
  'processing.exception.handler': { LogAndContinueProcessingExceptionHandler: logAndContinue, LogAndFailProcessingExceptionHandler: logAndFail },
  'default.production.exception.handler': { DefaultProductionExceptionHandler: logAndFail, LogAndContinueProductionExceptionHandler: logAndContinue },
} as const;

export type HandlerKey = keyof typeof NAMED_HANDLERS;

const KAFKA_PACKAGE = 'org.apache.kafka.streams.errors.';

/** The handler a key's value names (short or with Kafka's package), or undefined. */
export function namedHandler(key: HandlerKey, name: string): (() => HandlerResponse) | undefined {
  const short = name.trim().startsWith(KAFKA_PACKAGE) ? name.trim().slice(KAFKA_PACKAGE.length) : name.trim();
  const handlers: Readonly<Record<string, () => HandlerResponse>> = NAMED_HANDLERS[key];
  return Object.hasOwn(handlers, short) ? handlers[short] : undefined;
}

/**
 * The handlers named by `name(key)` for each key; one not named, or naming no handler, fails, and a failed thread
 * shuts the client down unless `uncaught.exception.handler` names another response.
 */
export function namedHandlers(name: (key: HandlerKey | 'uncaught.exception.handler') => string | undefined): ExceptionHandlers {
  const handler = (key: HandlerKey) => namedHandler(key, name(key) ?? '') ?? logAndFail;
  const uncaught = THREAD_EXCEPTION_RESPONSES.find((response) => response === name('uncaught.exception.handler')) ?? 'SHUTDOWN_CLIENT';
  return {
    deserialization: handler('default.deserialization.exception.handler'),
    processing: handler('processing.exception.handler'),
    production: handler('default.production.exception.handler'),
    uncaught: () => uncaught,
  };
}

/** Kafka Streams' dead-letter queue headers (KIP-1034, `ExceptionHandlerUtils`). */
export const DLQ_HEADERS = {
  exception: '__streams.errors.exception',
  stacktrace: '__streams.errors.stacktrace',
  message: '__streams.errors.message',
  topic: '__streams.errors.topic',
  partition: '__streams.errors.partition',
  offset: '__streams.errors.offset',
} as const;

/**
 * The dead-letter record of a skipped consumed record, as Kafka Streams builds it: the source record's raw key and
 * value, its timestamp and headers, plus the error and where the record was read. The partition is left to the
 * producer (murmur2 of the key).
 */
export function deadLetterRecord(topic: string, context: ConsumedErrorContext, error: Error): ProducedRecord {
  return {
    topic,
    key: context.sourceRawKey,
    value: context.sourceRawValue,
    timestamp: context.timestamp,
    headers: {
      ...context.headers,
      [DLQ_HEADERS.exception]: error.name,
      [DLQ_HEADERS.message]: error.message,
      [DLQ_HEADERS.stacktrace]: error.stack ?? `${error.name}: ${error.message}`,
      [DLQ_HEADERS.topic]: context.topic,
      [DLQ_HEADERS.partition]: String(context.partition),
      [DLQ_HEADERS.offset]: String(context.offset),
    },
  };
}

/** An Error for a handler, from whatever was thrown. */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
