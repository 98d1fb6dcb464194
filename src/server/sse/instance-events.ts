/**
 * The event types of an instance (compatibility file, section 6) and what each sends to a subscriber: the built-in
 * `state` (the current state first, then every transition), `rebalance`, `restore`, `metrics` on a timer, `thread`
 * (a stream thread failed, was replaced, added or removed: Sluice's, beyond the compatibility file), `timeline`
 * (each entry of the node's rebalance and restore timeline as it is added or updated: Sluice's too), `memory` (a part
 * of the node's memory budget that stayed at its bound: Sluice's too); and
 * the topology's own event types, each record its processors publish as `{"record": {key, value, timestamp}}`.
 */

import { metricGroupsJson } from '../../streams/metrics/metrics-json';
import { BUILT_IN_EVENT_TYPES } from '../../streams/topology/topology';
import type { LocalInstance } from '../context';
import { timelineEntryJson } from '../representations/timeline';
import { zonedTimestamp } from '../representations/timestamp';
/** Where an instance's events of one type go: its event log (event-log.ts). */
export interface EventSink {
  send(event: string, data: unknown): void;
  onClose(cleanup: () => void): void;
}

export const EVENT_TYPES = BUILT_IN_EVENT_TYPES;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

/** The built-in event types and the instance's topology's own. */
export function eventTypesOf(instance: LocalInstance): string[] {
  return [...EVENT_TYPES, ...instance.eventTypes()];
}

/** A key or value of a published record as JSON: bytes as base64, big integers as decimal text. */
function jsonOf(value: unknown): unknown {
  if (value === undefined) return null;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** Default of `metrics.sse.interval.ms`. */
export const DEFAULT_METRICS_INTERVAL_MS = 5000;

function metricsIntervalMs(instance: LocalInstance, fallback: number): number {
  const configured = Number(instance.config['metrics.sse.interval.ms']);
  return Number.isInteger(configured) && configured > 0 ? configured : fallback;
}

/** What a new subscriber gets first, before any event: the current state, or the metrics now; nothing for the other types. */
export function snapshotOf(instance: LocalInstance, type: string): unknown {
  if (type === 'state') return { state: instance.state, previous: instance.lastChange.previous, since: zonedTimestamp(instance.stateSince) };
  if (type === 'metrics') return metricGroupsJson(instance.view?.metrics.metrics() ?? []);
  return undefined;
}

/** Connects the sink to the instance's events of one type from now on; everything is released when the sink closes. */
export function subscribe(stream: EventSink, instance: LocalInstance, type: string, defaultMetricsIntervalMs: number): void {
  if (!isEventType(type)) {
    stream.onClose(
      instance.on('topologyEvent', (event) => {
        if (event.type === type) stream.send(type, { record: { key: jsonOf(event.key), value: jsonOf(event.value), timestamp: event.timestamp } });
      }),
    );
    return;
  }
  switch (type) {
    case 'state':
      stream.onClose(
        instance.on('state', (next) =>
          stream.send('state', {
            state: next.state,
            previous: next.previous,
            since: zonedTimestamp(next.since),
            ...(next.reason === undefined ? {} : { reason: next.reason }),
          }),
        ),
      );
      return;
    case 'rebalance':
      stream.onClose(
        instance.on('rebalance', (event) =>
          stream.send('rebalance', { generation: event.generation, active_tasks: event.activeTasks, standby_tasks: event.standbyTasks }),
        ),
      );
      return;
    case 'restore':
      stream.onClose(
        instance.on('restore', (event) =>
          stream.send('restore', {
            store: event.store,
            topic: event.topic,
            partition: event.partition,
            restored: event.restored,
            total: event.total,
            remaining: event.remaining,
            done: event.done,
          }),
        ),
      );
      return;
    case 'thread':
      stream.onClose(instance.on('thread', (event) => stream.send('thread', event)));
      return;
    case 'timeline':
      stream.onClose(instance.on('timeline', (entry) => stream.send('timeline', timelineEntryJson(entry))));
      return;
    case 'memory':
      stream.onClose(instance.on('memory', (pressure) => stream.send('memory', { part: pressure.part, usedBytes: pressure.usedBytes, budgetBytes: pressure.budgetBytes, since: zonedTimestamp(pressure.since) })));
      return;
    case 'metrics': {
      const publish = () => stream.send('metrics', snapshotOf(instance, 'metrics'));
      const timer = setInterval(publish, metricsIntervalMs(instance, defaultMetricsIntervalMs));
      timer.unref();
      stream.onClose(() => clearInterval(timer));
      return;
    }
  }
}
