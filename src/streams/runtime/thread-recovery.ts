import type { Logger } from 'pino';
import { isTransactionLostError, isTransientKafkaError } from '../kafka';
import { type StreamsUncaughtExceptionHandler, type StreamThreadExceptionResponse, THREAD_EXCEPTION_RESPONSES } from './exception-handlers';

/**
 * Which failures of a stream thread its replacement recovers from, and for how long replacements are tried.
 *
 * Under exactly-once a record send is never retried inside a transaction (its outcome is unknown), so a broker out
 * of reach, or a transaction the coordinator aborted or a newer producer fenced, fails the thread. What is lost
 * is the open transactions, not data: Kafka Streams closes the tasks dirty, wipes their stores and re-joins
 * (TaskCorruptedException, TaskMigratedException). Replacing the thread does the same: the new thread's tasks
 * restore from their changelogs (read committed) and read from the committed offsets. Replacements go on for
 * `task.timeout.ms` from the first failure, until the threads run again; at-least-once has retried its sends for
 * that long already, so its failures are final.
 */
export class ThreadRecovery {
  private failingSince: number | undefined;

  constructor(
    private readonly options: { exactlyOnce: boolean; taskTimeoutMs: number; clock?: () => number },
  ) {}

  /** Whether a thread that failed with `error` is to be replaced rather than fail the instance. */
  recoverable(error: unknown): boolean {
    if (!this.options.exactlyOnce || !(isTransientKafkaError(error) || isTransactionLostError(error))) return false;
    const now = (this.options.clock ?? Date.now)();
    return now - (this.failingSince ??= now) < this.options.taskTimeoutMs;
  }

  /** The threads run again: the next failure has the whole task.timeout.ms. */
  recovered(): void {
    this.failingSince = undefined;
  }
}

/** What the uncaught-exception handler answers for a thread's failure; one that throws or answers something else shuts the client down, as in Kafka Streams. */
export function uncaughtResponse(handler: StreamsUncaughtExceptionHandler, error: Error, logger: Logger): StreamThreadExceptionResponse {
  try {
    const response = handler(error);
    if (THREAD_EXCEPTION_RESPONSES.includes(response)) return response;
    logger.error({ response }, 'the uncaught-exception handler answered no known response; shutting the client down');
  } catch (thrown) {
    logger.error({ err: thrown }, 'the uncaught-exception handler threw; shutting the client down');
  }
  return 'SHUTDOWN_CLIENT';
}
