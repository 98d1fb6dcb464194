import pino from 'pino';
import type { Logger } from 'pino';
import { traceIds } from '../sluice-tracer';

/**
 * A worker's logger: its lines go to the main thread, whose logger writes them where the instance's lines go (a
 * destination, a file, a test's stream), with the instance's bindings. `traced`: each line carries the ids of the
 * worker's span it is written in, as the main thread's lines do.
 */
export function relayingLogger(level: string, send: (line: string) => void, traced = false): Logger {
  return pino({ level, base: undefined, timestamp: false, ...(traced ? { mixin: traceIds } : {}) }, { write: (line: string) => send(line) });
}

/** The component of the worker's kafkajs lines, whose logger on the main thread has a level of its own. */
export const KAFKA_COMPONENT = 'kafka';

/** Writes a line of a worker's logger with the instance's logger (its kafkajs lines with `kafkaLogger`), at the line's level. */
export function relayLine(line: string, logger: Logger, kafkaLogger: Logger): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    logger.warn({ line }, 'unreadable log line from a stream thread worker');
    return;
  }
  const { level, msg, component, ...fields } = parsed;
  const target = component === KAFKA_COMPONENT ? kafkaLogger : logger;
  const label = target.levels.labels[Number(level)] ?? 'info';
  (target[label as pino.Level] as pino.LogFn)(fields, typeof msg === 'string' ? msg : '');
}
