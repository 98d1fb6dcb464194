/**
 * What a node reports of itself, read every SAMPLE_MS from its own /prometheus: RSS and V8 heap in use (prom-client's
 * process metrics) and the records its stream threads processed (the thread-level `process-total`). One reading a
 * minute would land anywhere on the garbage collector's sawtooth (tens of MB between two major GCs): the minute keeps
 * the lowest and highest readings too, and the lowest RSS is the floor a leak would raise.
 */
import { request } from 'undici';
import { prometheusSum } from '../support/prometheus';
import type { SoakNode } from './cluster';
import { ErrorTally, errorMessage } from './errors';

const SAMPLE_MS = 5000;

export interface NodeFigures {
  /** Bytes. */
  rss: number | undefined;
  heapUsed: number | undefined;
  /** What V8 holds for its heap, used or not: most of RSS, and slow to go back after a high peak. */
  heapTotal: number | undefined;
  /** Records processed by the node's threads since they started (input and repartition records alike). */
  processed: number | undefined;
}

/** A minute of readings; undefined figures when none succeeded (the errors are counted). */
export interface NodeMinuteFigures {
  last: NodeFigures | undefined;
  rssMin: number | undefined;
  rssMax: number | undefined;
  heapMin: number | undefined;
  heapMax: number | undefined;
}

async function readFigures(node: SoakNode): Promise<NodeFigures> {
  const response = await request(`${node.process.url}/prometheus`);
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET /prometheus answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return {
    rss: prometheusSum(text, 'process_resident_memory_bytes'),
    heapUsed: prometheusSum(text, 'nodejs_heap_size_used_bytes'),
    heapTotal: prometheusSum(text, 'nodejs_heap_size_total_bytes'),
    processed: prometheusSum(text, 'streams_process_total', { group: 'stream-thread-metrics' }),
  };
}

const extreme = (pick: (...values: number[]) => number, values: (number | undefined)[]): number | undefined => {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : pick(...defined);
};

/** Reads one node every SAMPLE_MS; a node that exited or does not answer is an error. */
export class NodeWatch {
  private readings: NodeFigures[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly node: SoakNode,
    private readonly errors: ErrorTally,
  ) {}

  /** Reads once (the figures before the load), then every SAMPLE_MS. */
  async start(): Promise<NodeFigures | undefined> {
    const first = await this.read();
    // Before the load: not part of the first minute.
    this.readings = [];
    this.timer = setInterval(() => void this.read(), SAMPLE_MS);
    return first;
  }

  /** Reads once more (the minute's end), and gives the minute's readings; the next minute starts empty. */
  async takeMinute(): Promise<NodeMinuteFigures> {
    const last = await this.read();
    const readings = this.readings;
    this.readings = [];
    return {
      last,
      rssMin: extreme(Math.min, readings.map((r) => r.rss)),
      rssMax: extreme(Math.max, readings.map((r) => r.rss)),
      heapMin: extreme(Math.min, readings.map((r) => r.heapUsed)),
      heapMax: extreme(Math.max, readings.map((r) => r.heapUsed)),
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async read(): Promise<NodeFigures | undefined> {
    const failure = this.node.process.failure();
    if (failure !== undefined) {
      this.errors.add('node exited', failure);
      return undefined;
    }
    try {
      const figures = await readFigures(this.node);
      this.readings.push(figures);
      return figures;
    } catch (error) {
      this.errors.add('node figures', `${this.node.process.label}: ${errorMessage(error)}`);
      return undefined;
    }
  }
}
