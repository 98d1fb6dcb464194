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
        `heap ${mb(figures.last?.heapUsed).padStart(6)} ${range(figures.heapMin, figures.heapMax)}   processed ${count(processed)}`
      );
    }),
    ...errorLines(minute.errors, 'in the minute'),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Each node's RSS growth from the first minute to the last, on the floor (the minute's lowest reading: the last one
 * alone moves with the garbage collector's sawtooth), and every error (`whileStopping`: those after the last
 * minute's block), against the goals.
 */
export function summary(minutes: readonly Minute[], totalErrors: number, whileStopping: Map<string, ErrorCount>): string {
  const first = minutes[0];
  const last = minutes.at(-1);
  const lines = [`summary after ${minutes.length} minute(s)`];
  if (first === undefined || last === undefined || minutes.length < 2) {
    lines.push(`  RSS growth after the first minute: needs 2 minutes or more (goal < ${RSS_GROWTH_GOAL} %)`);
  } else {
    for (const [i, node] of last.nodes.entries()) {
      const from = first.nodes[i]?.figures;
      const to = node.figures;
      if (from?.rssMin === undefined || to.rssMin === undefined) {
        lines.push(`  ${node.label}   RSS growth after the first minute: n/a (not read)`);
        continue;
      }
      const growth = ((to.rssMin - from.rssMin) / from.rssMin) * 100;
      lines.push(
        `  ${node.label}   RSS floor, minute 1 -> ${last.index}: ${mb(from.rssMin)} -> ${mb(to.rssMin)}, ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % ` +
          `(goal < ${RSS_GROWTH_GOAL} %: ${growth < RSS_GROWTH_GOAL ? 'met' : 'NOT met'}); peak ${mb(from.rssMax)} -> ${mb(to.rssMax)}`,
      );
    }
  }
  lines.push(`  errors ${totalErrors} (goal 0: ${totalErrors === 0 ? 'met' : 'NOT met'})`, ...errorLines(whileStopping, 'while stopping'));
  return `${lines.join('\n')}\n`;
}
