/**
 * Node's process metrics (CPU, memory, event loop lag, GC, ...) from prom-client's `collectDefaultMetrics`, kept
 * in a registry of their own rather than prom-client's global one, so that nothing else registering there can
 * clash with them. Created on first use: the collectors start watching the event loop and GC from then on.
 */

import { collectDefaultMetrics, Registry } from 'prom-client';

let registry: Registry | undefined;

export function processMetricsRegistry(): Registry {
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}
