/**
 * Log lines for a person at a terminal: one line per event, `time LEVEL component application: message key=value`,
 * coloured by level. An error shows as its type and message (and, at error level, where it was thrown), never as a
 * stack: the JSON format keeps the whole error.
 */
import * as fs from 'node:fs';

/** pino's numeric levels. */
const LEVELS: Record<number, { name: string; color: number }> = {
  10: { name: 'TRACE', color: 90 },
  20: { name: 'DEBUG', color: 36 },
  30: { name: 'INFO', color: 32 },
  40: { name: 'WARN', color: 33 },
  50: { name: 'ERROR', color: 31 },
  60: { name: 'FATAL', color: 35 },
};
const ERROR_LEVEL = 50;
/** Fields the line shows in its own places, or that say nothing to a reader (pino's pid, hostname and version). */
const PLACED = new Set(['level', 'time', 'msg', 'component', 'applicationId', 'pid', 'hostname', 'name', 'v']);
const BARE = /^[\w.:/@+-]+$/;
const LONGEST_VALUE = 300;

interface SerializedError {
  type?: string;
  message?: string;
  stack?: string;
  code?: unknown;
}

function paint(text: string, color: number, colors: boolean): string {
  return colors ? `\u001b[${color}m${text}\u001b[0m` : text;
}

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? (BARE.test(value) ? value : JSON.stringify(value)) : (JSON.stringify(value) ?? String(value));
  return text.length > LONGEST_VALUE ? `${text.slice(0, LONGEST_VALUE)}…` : text;
}

/** `Type: message`, and at error level the first frame of the stack. */
function describeError(error: SerializedError, withPlace: boolean): string {
  const type = error.type && error.type !== 'Error' ? `${error.type}: ` : '';
  const place = withPlace ? error.stack?.split('\n').find((line) => line.trimStart().startsWith('at '))?.trim() : undefined;
  return shown(`${type}${error.message ?? ''}${place ? ` (${place})` : ''}`);
}

/** One pino entry (parsed) as one line, without its line break. */
export function prettyLine(entry: Record<string, unknown>, colors: boolean): string {
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level), color: 37 };
  const source = [entry.component, entry.applicationId].filter((part) => typeof part === 'string').join(' ');
  const fields = Object.entries(entry)
    .filter(([key, value]) => !PLACED.has(key) && value !== undefined)
    .map(([key, value]) => {
      const text = key === 'err' && typeof value === 'object' && value !== null ? describeError(value as SerializedError, Number(entry.level) >= ERROR_LEVEL) : shown(value);
      return `${paint(`${key}=`, 90, colors)}${text}`;
    });
  return [
    paint(clock(entry.time), 90, colors),
    paint(level.name.padEnd(5), level.color, colors),
    ...(source === '' ? [] : [paint(`${source}:`, 34, colors)]),
    String(entry.msg ?? ''),
    ...fields,
  ].join(' ');
}

/** A pino destination that writes each entry as a pretty line to `fd`, synchronously (nothing lost at exit). */
export function prettyDestination(fd: number, colors: boolean): { write(line: string): void } {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        fs.writeSync(fd, line);
        return;
      }
      fs.writeSync(fd, `${prettyLine(entry, colors)}\n`);
    },
  };
}
