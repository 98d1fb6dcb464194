/** The soak's printed figures: one block a minute, and the summary against the goals of issue 17. */
import { percentile } from '../support/latency';
import { mb } from '../support/program';
import type { ErrorCount } from './errors';
import type { NodeFigures } from './node-figures';
import type { QueryMinute } from './query-load';

/** RSS growth after the first minute, at most (%). */
const RSS_GROWTH_GOAL = 10;

export interface NodeMinute {
  label: string;
  /** Undefined when the node could not be read; the error is counted. */
  figures: NodeFigures | undefined;
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
    ...minute.nodes.map(
      (node) =>
        `  ${node.label}   RSS ${mb(node.figures?.rss).padStart(7)}   heap ${mb(node.figures?.heapUsed).padStart(7)}   processed ${count(node.processed)}`,
    ),
    ...errorLines(minute.errors, 'in the minute'),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * RSS growth of each node from the end of the first minute to the end of the last, and every error (`whileStopping`:
 * those after the last minute's block), against the goals.
 */
export function summary(minutes: readonly Minute[], totalErrors: number, whileStopping: Map<string, ErrorCount>): string {
  const first = minutes[0];
  const last = minutes.at(-1);
  const lines = [`summary after ${minutes.length} minute(s)`];
  if (first === undefined || last === undefined || minutes.length < 2) {
    lines.push(`  RSS growth after the first minute: needs 2 minutes or more (goal < ${RSS_GROWTH_GOAL} %)`);
  } else {
    for (const [i, node] of last.nodes.entries()) {
      const from = first.nodes[i]?.figures?.rss;
      const to = node.figures?.rss;
      if (from === undefined || to === undefined) {
        lines.push(`  ${node.label}   RSS growth after the first minute: n/a (not read)`);
        continue;
      }
      const growth = ((to - from) / from) * 100;
      lines.push(
        `  ${node.label}   RSS growth after the first minute ${mb(from)} -> ${mb(to)}: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} % ` +
          `(goal < ${RSS_GROWTH_GOAL} %: ${growth < RSS_GROWTH_GOAL ? 'met' : 'NOT met'})`,
      );
    }
  }
  lines.push(`  errors ${totalErrors} (goal 0: ${totalErrors === 0 ? 'met' : 'NOT met'})`, ...errorLines(whileStopping, 'while stopping'));
  return `${lines.join('\n')}\n`;
}
