/**
 * What a node reports of itself each minute: RSS from /proc, the V8 heap in use and the records its stream threads
 * processed from its own /prometheus (prom-client's process metrics, the thread-level `process-total`).
 */
import { request } from 'undici';
import { prometheusSum } from '../support/prometheus';
import type { SoakNode } from './cluster';

export interface NodeFigures {
  /** Bytes; undefined once the process is gone. */
  rss: number | undefined;
  heapUsed: number | undefined;
  /** Records processed by the node's threads since they started (input and repartition records alike). */
  processed: number | undefined;
}

export async function nodeFigures(node: SoakNode): Promise<NodeFigures> {
  const rss = node.process.rss();
  const response = await request(`${node.process.url}/prometheus`);
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET /prometheus of ${node.process.label} answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return {
    rss,
    heapUsed: prometheusSum(text, 'nodejs_heap_size_used_bytes'),
    processed: prometheusSum(text, 'streams_process_total', { group: 'stream-thread-metrics' }),
  };
}
