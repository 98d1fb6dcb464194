/**
 * The node's loggers: one root, written as JSON lines or as pretty lines (log.format; auto: pretty on a terminal),
 * and a child per component with a level of its own (log.components), kafkajs' at warn unless asked.
 */
import * as tty from 'node:tty';
import pino, { type Logger } from 'pino';
import { defaultKafkaLogLevel } from '../../streams/kafka';
import { traceIds } from '../../streams/runtime/sluice-tracer';
import type { LogComponent, LogConfig } from '../config/host-config';
import { LOG_COMPONENTS } from '../config/schema';
import { prettyDestination } from './pretty-lines';

export type ComponentLoggers = Readonly<Record<LogComponent, Logger>>;

/** Whether lines go out pretty, and then coloured (NO_COLOR and FORCE_COLOR as their conventions say). */
export function lineStyle(format: LogConfig['format'], isTerminal: boolean, env: NodeJS.ProcessEnv): { pretty: boolean; colors: boolean } {
  const pretty = format === 'pretty' || (format !== 'json' && isTerminal);
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' ? env.FORCE_COLOR !== '0' : undefined;
  return { pretty, colors: pretty && (forced ?? (isTerminal && (env.NO_COLOR === undefined || env.NO_COLOR === ''))) };
}

/**
 * The root logger, writing to `fd` (1: standard output, 2: standard error) synchronously, so that nothing is lost at
 * exit; with `traced`, each line carries the ids of the span it is written in (traceIds), else it asks nothing.
 */
export function rootLogger(settings: LogConfig, fd: 1 | 2, env: NodeJS.ProcessEnv = process.env, traced = false): Logger {
  const { pretty, colors } = lineStyle(settings.format, tty.isatty(fd), env);
  return pino({ level: settings.level, ...(traced ? { mixin: traceIds } : {}) }, pretty ? prettyDestination(fd, colors) : pino.destination({ dest: fd, sync: true }));
}

/** A child of `root` per component, at the level `components` gives it, else at the root's (kafkajs: at most warn). */
export function componentLoggers(root: Logger, components: LogConfig['components'] = {}): ComponentLoggers {
  const levelOf = (component: LogComponent) => components[component] ?? (component === 'kafka' ? defaultKafkaLogLevel(root.level) : root.level);
  return Object.fromEntries(LOG_COMPONENTS.map((component) => [component, root.child({ component }, { level: levelOf(component) })])) as Record<LogComponent, Logger>;
}
