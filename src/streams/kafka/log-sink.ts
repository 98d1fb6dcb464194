/**
 * Where kafkajs' lines go, made readable: no stacks below debug (kafkajs attaches one to every failed connection),
 * and brokers that cannot be reached told once, as one short line, then again only after a minute of quiet: kafkajs
 * logs every retry of every client, which at start-up (a broker not up yet) is dozens of lines.
 */
import type { KafkaLogSink } from './client';

/** The retries kafkajs logs for a broker it cannot reach, as effectiveLogLevel leaves them (warnings). */
const UNREACHABLE = [/^Connection (error|timeout)/, /^Failed to connect to seed broker/];
/** How long such failures stay quiet after the line that told them. */
const QUIET_MS = 60_000;
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** What the sink writes to: a pino logger, whose level says whether stacks are kept. */
export interface LevelledSink extends KafkaLogSink {
  readonly level: string;
}

/** kafkajs' lines are warnings and errors unless asked for (log.components.kafka), or fewer when the instance logs less. */
export function defaultKafkaLogLevel(instanceLevel: string): string {
  return LEVELS.indexOf(instanceLevel) > LEVELS.indexOf('warn') ? instanceLevel : 'warn';
}

export function readableKafkaLogs(target: LevelledSink, now: () => number = Date.now): KafkaLogSink {
  let toldAt: number | undefined;
  const keepStacks = LEVELS.indexOf(target.level) <= LEVELS.indexOf('debug');
  const shape = (fields: object): object => {
    if (keepStacks || !('stack' in fields)) return fields;
    const { stack: _stack, ...rest } = fields as Record<string, unknown>;
    return rest;
  };
  return {
    error: (fields, message) => target.error(shape(fields), message),
    info: (fields, message) => target.info(shape(fields), message),
    debug: (fields, message) => target.debug(shape(fields), message),
    warn: (fields, message) => {
      if (!UNREACHABLE.some((pattern) => pattern.test(message))) return target.warn(shape(fields), message);
      if (toldAt !== undefined && now() - toldAt < QUIET_MS) return target.debug(shape(fields), message);
      toldAt = now();
      target.warn(shape(fields), `${message} (retrying)`);
    },
  };
}
