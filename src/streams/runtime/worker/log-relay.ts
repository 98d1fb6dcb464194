import pino from 'pino';
import type { Logger } from 'pino';

/**
 * A worker's logger: its lines go to the main thread, whose logger writes them where the instance's lines go (a
 * destination, a file, a test's stream), with the instance's bindings.
 */
export function relayingLogger(level: string, send: (line: string) => void): Logger {
  return pino({ level, base: undefined, timestamp: false }, { write: (line: string) => send(line) });
}

/** Writes a line of a worker's logger with the instance's logger, at the line's level. */
export function relayLine(logger: Logger, line: string): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    logger.warn({ line }, 'unreadable log line from a stream thread worker');
    return;
  }
  const { level, msg, ...fields } = parsed;
  const label = logger.levels.labels[Number(level)] ?? 'info';
  (logger[label as pino.Level] as pino.LogFn)(fields, typeof msg === 'string' ? msg : '');
}
