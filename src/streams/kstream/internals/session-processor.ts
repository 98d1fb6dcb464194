import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import type { SessionStore, Window, Windowed } from '../../state/store';
import type { SessionWindows } from '../windows';
import { dropRecord, isNull } from './drop';
import { TableForwarder } from './table-forwarder';
import type { OldValues } from './old-values';
import { dropLate, type WindowedAggregator } from './window-processors';

/** Merges the aggregates of two sessions that a record joins together. */
export type SessionMerger<K, A> = (key: K, aggregate: A | null, next: A) => A;

/**
 * `windowedBy(SessionWindows)`: Kafka Streams' `KStreamSessionWindowAggregate`. A record at `t` joins every
 * session of its key that ends at or after `t - gap` and starts at or before `t + gap`; those sessions are merged
 * into one `[min start, max end]`: the old ones are removed (tombstones downstream) and the merged one is written.
 * A session whose end is older than stream time - gap - grace is closed: the record is dropped.
 */
export function sessionWindowAggregateProcessor<K, V, A>(
  windows: SessionWindows,
  storeName: string,
  aggregator: WindowedAggregator<K, V, A>,
  merger: SessionMerger<K, A>,
  oldValues: OldValues,
): ProcessorSupplier<unknown, unknown, unknown, unknown> {
  const gap = windows.inactivityGapMs;
  return () =>
    new (class implements Processor<K, V, unknown, unknown> {
      private context!: ProcessorContext<unknown, unknown>;
      private store!: SessionStore<K, A>;
      private forwarder!: TableForwarder;
      private observedStreamTime = -1;

      init(context: ProcessorContext<unknown, unknown>): void {
        this.context = context;
        this.store = context.getStateStore<SessionStore<K, A>>(storeName);
        this.forwarder = TableForwarder.session(context, this.store, oldValues);
      }

      process(record: StreamRecord<K, V>): void {
        if (isNull(record.key) || (aggregator.skipNullValues && isNull(record.value))) {
          dropRecord(this.context, 'null key or value in a session aggregation');
          return;
        }
        const timestamp = record.timestamp;
        this.observedStreamTime = Math.max(this.observedStreamTime, timestamp);
        const closeTime = this.observedStreamTime - windows.graceMs - gap;
        const found = Array.from(this.store.findSessions(record.key, timestamp - gap, timestamp + gap));
        let aggregate = aggregator.init();
        let merged: Window = { start: timestamp, end: timestamp };
        for (const session of found) {
          aggregate = merger(record.key, aggregate, session.value);
          merged = { start: Math.min(merged.start, session.key.window.start), end: Math.max(merged.end, session.key.window.end) };
        }
        if (merged.end < closeTime) {
          dropLate(this.context, `[${merged.start},${merged.end}]`, closeTime);
          return;
        }
        if (merged.start !== timestamp || merged.end !== timestamp) {
          for (const session of found) this.write(record, session.key, null, session.value);
        }
        const value = aggregator.add(record.key, record.value, aggregate);
        this.write(record, { key: record.key, window: merged }, value, null);
      }

      /** Writes a session's aggregate, or with null removes the session, and forwards the update. */
      private write(record: StreamRecord<K, V>, session: Windowed<K>, value: A | null, oldAgg: A | null): void {
        if (value === null) this.store.remove(session);
        else this.store.put(session, value);
        const change = { newValue: value, oldValue: oldValues.send ? oldAgg : null };
        this.forwarder.maybeForward({ key: session, value: change, timestamp: session.window.end, headers: record.headers });
      }
    })() as Processor;
}
