/**
 * A query's answer as the rows of a table: windowed keys apart into key, window start and end; times readable in
 * the browser's time zone; sorting; and the rows shown as CSV or JSON.
 */

import type { StoreQueryResult } from '../api';
import type { Sort } from './form';

export interface Column {
  id: string;
  label: string;
  /** Epoch ms, shown as a date and time. */
  time?: boolean;
}

/** One row: each column's value as the API gave it (keys and values as JSON values, times as epoch ms). */
export interface Row {
  values: Record<string, unknown>;
  failure: boolean;
}

export interface Table {
  columns: Column[];
  rows: Row[];
}

/** The answer's window and session keys: `{key, window_start, window_end}`. */
interface WindowedKey {
  key: unknown;
  window_start: number;
  window_end: number;
}

const isWindowed = (type: string) => type.endsWith('window') || type === 'session';

function partServer(part: { server: string; remote: boolean; standby?: boolean; lag?: number }): string {
  const notes = [part.remote ? 'remote' : '', part.standby ? `standby, lag ${part.lag ?? 0}` : ''].filter((n) => n !== '');
  return notes.length === 0 ? part.server : `${part.server} (${notes.join('; ')})`;
}

export function tableOf(result: StoreQueryResult, type: string): Table {
  const windowed = isWindowed(type);
  const span = type === 'session' ? 'Session' : 'Window';
  const records = result.result.success.flatMap((part) => part.records);
  const columns: Column[] = [
    { id: 'key', label: 'Key' },
    ...(windowed
      ? [
          { id: 'window_start', label: `${span} start`, time: true },
          { id: 'window_end', label: `${span} end`, time: true },
        ]
      : []),
    { id: 'value', label: 'Value' },
    ...(records.some((r) => r.timestamp !== undefined) ? [{ id: 'timestamp', label: 'Timestamp', time: true }] : []),
    ...(records.some((r) => r.valid_to !== undefined) ? [{ id: 'valid_to', label: 'Valid to', time: true }] : []),
    { id: 'server', label: 'Server' },
    { id: 'part', label: 'Part' },
  ];
  const rows: Row[] = [
    ...result.result.success.flatMap((part) =>
      part.records.map((record) => {
        const key = windowed ? (record.key as WindowedKey) : undefined;
        return {
          failure: false,
          values: {
            key: key ? key.key : record.key,
            ...(key ? { window_start: key.window_start, window_end: key.window_end } : {}),
            value: record.value,
            timestamp: record.timestamp,
            valid_to: record.valid_to,
            server: partServer(part),
            part: 'SUCCESS',
          },
        };
      }),
    ),
    ...result.result.failure.map((part) => ({
      failure: true,
      values: { value: part.errors.map((e) => e.message).join('; '), server: partServer(part), part: 'FAILURE' },
    })),
  ];
  return { columns, rows };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `2026-01-15 09:30:00` in the browser's time zone, with milliseconds when there are any. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  const seconds = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return d.getMilliseconds() === 0 ? seconds : `${seconds}.${pad(d.getMilliseconds(), 3)}`;
}

/** A datetime-local input's value for epoch ms: the browser's time zone, to the second or millisecond. */
export function localInputValue(ms: string): string {
  if (ms === '' || !Number.isFinite(Number(ms))) return '';
  return formatTime(Number(ms)).replace(' ', 'T');
}

export const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A cell's text: strings as they are, other JSON values as JSON, times as dates. */
export function cellText(column: Column, value: unknown): string {
  if (value === undefined || value === null) return value === null && !column.time ? 'null' : '';
  if (column.time && typeof value === 'number') return formatTime(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const collator = new Intl.Collator(undefined, { numeric: true });

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return collator.compare(typeof a === 'string' ? a : JSON.stringify(a), typeof b === 'string' ? b : JSON.stringify(b));
}

/** The rows in the column's order (numbers and times by value); failures stay last, in the answer's order. */
export function sortRows(rows: Row[], sort: Sort | undefined): Row[] {
  if (sort === undefined) return rows;
  const sign = sort.descending ? -1 : 1;
  const records = rows.filter((r) => !r.failure).sort((a, b) => sign * compare(a.values[sort.column], b.values[sort.column]));
  return [...records, ...rows.filter((r) => r.failure)];
}

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. A field that a
 * spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage return) is prefixed with a
 * single quote, as OWASP recommends against CSV injection: every exported value stays text.
 */
export function csvField(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The rows shown, as shown, under a header whose times name their zone; lines end with CRLF, as RFC 4180 has it. */
export function toCsv(table: Table, rows: Row[]): string {
  const zone = timeZone();
  const header = table.columns.map((c) => csvField(c.time ? `${c.label} (${zone})` : c.label));
  const lines = rows.map((row) => table.columns.map((c) => csvField(cellText(c, row.values[c.id]))).join(','));
  return [header.join(','), ...lines].map((line) => `${line}\r\n`).join('');
}

/** The rows shown, with the API's values: keys and values as JSON, times as epoch ms. */
export function toJson(table: Table, rows: Row[]): string {
  const objects = rows.map((row) => Object.fromEntries(table.columns.filter((c) => row.values[c.id] !== undefined).map((c) => [c.id, row.values[c.id]])));
  return `${JSON.stringify(objects, null, 2)}\n`;
}

/** Hands the browser a file to save. */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // Kept a moment: the browser reads the blob once the download has started, not during click().
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
