/** The soak's printed figures: one block a minute, and the summary against the goals of issue 17. */
import { percentile } from '../support/latency';
import { mb } from '../support/program';
import type { ErrorCount } from './errors';
import type { NodeMinuteFigures } from './node-figures';
import type { QueryMinute } from './query-load';

/** RSS growth after the first minute, at most (%). */
const RSS_GROWTH_GOAL = 10;

export interface NodeMinute {
  label: string;
  figures: NodeMinuteFigures;
  /** Records processed in the minute. */
  processed: number | undefined;
}

export interface Minute {
  index: number;
  loadAverage: number;
  produced: number;
  queries: QueryMinute;
  sseEvents: number;
  sseOpen: number;
  errors: Map<string, ErrorCount>;
  nodes: NodeMinute[];
}

const count = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toLocaleString('en-US'));
const ms = (n: number): string => (Number.isNaN(n) ? 'n/a' : `${n.toFixed(1)} ms`);

function errorLines(errors: Map<string, ErrorCount>, when: string): string[] {
  return [...errors].map(([kind, e]) => `  ${kind} x${e.count} ${when}, the first: ${e.first}`);
}

export function minuteBlock(minute: Minute): string {
  const { queries } = minute;
  const errorCount = [...minute.errors.values()].reduce((sum, e) => sum + e.count, 0);
  const lines = [
    `minute ${String(minute.index).padStart(2)}   load ${minute.loadAverage.toFixed(1)}   produced ${count(minute.produced)} lines   ` +
      `queries ${count(queries.latencies.length)} (${count(queries.local)} local, ${count(queries.forwarded)} forwarded)   ` +
      `p50 ${ms(percentile(queries.latencies, 50))}   p99 ${ms(percentile(queries.latencies, 99))}   ` +
      `SSE events ${count(minute.sseEvents)} (${minute.sseOpen} open)   errors ${errorCount}`,
    ...minute.nodes.map(({ label, figures, processed }) => {
      const range = (min: number | undefined, max: number | undefined) => `(${mb(min)} - ${mb(max)})`.padEnd(17);
      return (
        `  ${label}   RSS ${mb(figures.last?.rss).padStart(6)} ${range(figures.rssMin, figures.rssMax)}   ` +
        `heap ${mb(figures.last?.heapUsed).padStart(6)} ${range(figures.heapMin, figures.heapMax)} of ${mb(figures.last?.heapTotal).padStart(6)}   ` +
        `processed ${count(processed)}`
      );
    }),
    ...errorLines(minute.errors, 'in the minute'),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Each node's RSS growth after the first minute, on the floor (the minute's lowest reading: a single one lands
 * anywhere on the garbage collector's sawtooth): from minute 2's floor, the first after the warm-up (V8 raising its
 * heap limit, code compiled, store pages mapped), to the last minute's. And every error (`whileStopping`: those
 * after the last minute's block), against the goals.
 */
export function summary(minutes: readonly Minute[], totalErrors: number, whileStopping: Map<string, ErrorCount>): string {
  const [first, second] = minutes;
  const last = minutes.at(-1);
  const lines = [`summary after ${minutes.length} minute(s)`];
  if (first === undefined || second === undefined || last === undefined || minutes.length < 3) {
    lines.push(`  RSS growth after the first minute: needs 3 minutes or more (goal < ${RSS_GROWTH_GOAL} %)`);
  } else {
    for (const [i, node] of last.nodes.entries()) {
      const floors = [first, second, last].map((minute) => minute.nodes[i]?.figures.rssMin);
      const [, from, to] = floors;
      if (from === undefined || to === undefined) {
        lines.push(`  ${node.label}   RSS growth after the first minute: n/a (not read)`);
        continue;
      }
      const growth = ((to - from) / from) * 100;
      lines.push(
        `  ${node.label}   RSS floor in minutes 1, 2 and ${last.index}: ${floors.map(mb).join(', ')}; ` +
          `growth after the first minute ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % (goal < ${RSS_GROWTH_GOAL} %: ${growth < RSS_GROWTH_GOAL ? 'met' : 'NOT met'}); ` +
          `peak in minute ${last.index} ${mb(node.figures.rssMax)}`,
      );
    }
  }
  lines.push(`  errors ${totalErrors} (goal 0: ${totalErrors === 0 ? 'met' : 'NOT met'})`, ...errorLines(whileStopping, 'while stopping'));
  return `${lines.join('\n')}\n`;
}
