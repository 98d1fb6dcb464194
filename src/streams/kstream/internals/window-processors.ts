import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import type { TimestampedWindowStore, ValueAndTimestamp, Window } from '../../state/store';
import type { SlidingWindows, TimeWindows } from '../windows';
import type { Headers } from '../../processor/record';
import type { Change } from './change';
import { dropRecord, isNull } from './drop';
import { TableForwarder } from './table-forwarder';
import type { OldValues } from './old-values';

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;

/** How a windowed `count`, `reduce` or `aggregate` folds records into the aggregate of a window or session. */
export interface WindowedAggregator<K, V, A> {
  /** The aggregate of an empty window: the initializer's, or null for reductions. */
  init(): A | null;
  add(key: K, value: V, aggregate: A | null): A;
  /** Reductions skip records with a null value; windowed aggregations pass them on, as Kafka Streams does. */
  readonly skipNullValues: boolean;
}

export function countAggregator<K, V>(): WindowedAggregator<K, V, number> {
  return { init: () => 0, add: (_key, _value, count) => (count ?? 0) + 1, skipNullValues: false };
}

export function reduceAggregator<K, V>(reducer: (aggregate: V, value: V) => V): WindowedAggregator<K, V, V> {
  return { init: () => null, add: (_key, value, aggregate) => (aggregate === null ? value : reducer(aggregate, value)), skipNullValues: true };
}

export function initializedAggregator<K, V, A>(
  initializer: () => A,
  aggregator: (key: K, value: V, aggregate: A) => A,
): WindowedAggregator<K, V, A> {
  return { init: initializer, add: (key, value, aggregate) => aggregator(key, value, aggregate ?? initializer()), skipNullValues: false };
}

/** Counts a record that came after its window closed (Kafka Streams' "Skipping record for expired window"). */
export function dropLate(context: ProcessorContext<unknown, unknown>, window: string, closeTime: number): void {
  dropRecord(context, `record for the expired window ${window} (windows closed up to ${closeTime})`);
}

/** One window of a key as a windowed aggregation reads it. */
interface StoredWindow<A> {
  start: number;
  value: ValueAndTimestamp<A>;
}

/**
 * Base of the windowed aggregations: the window store (behind its caching layer when caching is on), and the stream
 * time this processor observed (Kafka Streams' `observedStreamTime`), from which windows close after their grace
 * period.
 */
abstract class WindowAggregateProcessor<K, V, A> implements Processor<K, V, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;
  private store!: TimestampedWindowStore<K, A>;
  private forwarder!: TableForwarder;
  private observedStreamTime = -1;

  constructor(
    private readonly storeName: string,
    private readonly oldValues: OldValues,
    protected readonly aggregator: WindowedAggregator<K, V, A>,
  ) {}

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.store = context.getStateStore<TimestampedWindowStore<K, A>>(this.storeName);
    this.forwarder = TableForwarder.timestamped(context, this.store, this.oldValues);
  }

  protected fetchWindow(key: K, windowStart: number): ValueAndTimestamp<A> | undefined {
    return this.store.fetch(key, windowStart);
  }

  /** The windows of `key` that start within [from, to], oldest first (newest first when `backward`), read at once. */
  protected windowsOf(key: K, from: number, to: number, backward: boolean): StoredWindow<A>[] {
    const windows = backward ? this.store.backwardFetchRange(key, from, to) : this.store.fetchRange(key, from, to);
    return Array.from(windows, ({ key: start, value }) => ({ start, value }));
  }

  /** Writes the new aggregate of a window and forwards the update, now or when the cache writes it. */
  protected putWindow(key: K, window: Window, value: ValueAndTimestamp<A>, oldAgg: A | null, headers: Headers): void {
    this.store.put(key, value, window.start);
    const change: Change<A> = { newValue: value.value, oldValue: this.oldValues.send ? oldAgg : null };
    this.forwarder.maybeForward({ key: { key, window }, value: change, timestamp: value.timestamp, headers });
  }

  process(record: StreamRecord<K, V>): void {
    if (isNull(record.key) || (this.aggregator.skipNullValues && isNull(record.value))) {
      dropRecord(this.context, 'null key or value in a windowed aggregation');
      return;
    }
    this.observedStreamTime = Math.max(this.observedStreamTime, record.timestamp);
    this.aggregate(record, this.observedStreamTime);
  }

  protected abstract aggregate(record: StreamRecord<K, V>, streamTime: number): void;

  /** Adds the record to a window whose current aggregate is `current` (a null value: the window is new). */
  protected update(record: StreamRecord<K, V>, window: Window, current: { value: A | null; timestamp: number }): void {
    const newAgg = this.aggregator.add(record.key, record.value, current.value);
    const timestamp = current.value === null ? record.timestamp : Math.max(record.timestamp, current.timestamp);
    this.putWindow(record.key, window, { value: newAgg, timestamp }, current.value, record.headers);
  }
}

/** `windowedBy(TimeWindows)`: every window the record falls into that has not closed is updated. */
export function timeWindowAggregateProcessor<K, V, A>(
  windows: TimeWindows,
  storeName: string,
  aggregator: WindowedAggregator<K, V, A>,
  oldValues: OldValues,
): Supplier {
  return () =>
    new (class extends WindowAggregateProcessor<K, V, A> {
      protected aggregate(record: StreamRecord<K, V>, streamTime: number): void {
        const closeTime = streamTime - windows.graceMs;
        for (const window of windows.windowsFor(record.timestamp)) {
          if (window.end <= closeTime) {
            dropLate(this.context, `[${window.start},${window.end})`, closeTime);
            continue;
          }
          const old = this.fetchWindow(record.key, window.start);
          this.update(record, window, old ?? { value: this.aggregator.init(), timestamp: record.timestamp });
        }
      }
    })(storeName, oldValues, aggregator) as Processor;
}

/**
 * `windowedBy(SlidingWindows)`: Kafka Streams' `KStreamSlidingWindowAggregate`. Windows `[start, start + difference]`
 * are created only where their set of records changes: the record's left window ending at it, its right window
 * starting just after it (when later records fall in), and the right window of the previous record. Records earlier
 * than the difference share the window `[0, difference]`.
 */
export function slidingWindowAggregateProcessor<K, V, A>(
  windows: SlidingWindows,
  storeName: string,
  aggregator: WindowedAggregator<K, V, A>,
  oldValues: OldValues,
): Supplier {
  const difference = windows.timeDifferenceMs;
  const windowAt = (start: number): Window => ({ start, end: start + difference });
  return () =>
    new (class extends WindowAggregateProcessor<K, V, A> {
      private closeTime = -1;

      override process(record: StreamRecord<K, V>): void {
        if (isNull(record.value)) {
          dropRecord(this.context, 'null value in a sliding-window aggregation');
          return;
        }
        super.process(record);
      }

      protected aggregate(record: StreamRecord<K, V>, streamTime: number): void {
        this.closeTime = streamTime - windows.graceMs;
        const timestamp = record.timestamp;
        if (timestamp + difference < this.closeTime) {
          dropLate(this.context, `[${timestamp},${timestamp + difference}]`, this.closeTime);
        } else if (timestamp < difference) {
          this.processEarly(record);
        } else {
          this.processInOrder(record);
        }
      }

      /** Scans the windows that can hold the record, newest first, updating those that contain it. */
      private processInOrder(record: StreamRecord<K, V>): void {
        const timestamp = record.timestamp;
        const starts = new Set<number>();
        let leftAgg: ValueAndTimestamp<A> | undefined;
        let rightAgg: ValueAndTimestamp<A> | undefined;
        let leftExists = false;
        let rightExists = false;
        let previousTimestamp: number | undefined;
        const found = this.windowsOf(record.key, Math.max(0, timestamp - 2 * difference), timestamp + 1, true);
        for (const { start, value } of found) {
          starts.add(start);
          const end = start + difference;
          if (start === timestamp + 1) {
            rightExists = true;
          } else if (end > timestamp) {
            rightAgg ??= value;
            this.updateIfOpen(record, windowAt(start), value);
          } else if (end === timestamp) {
            leftExists = true;
            this.updateIfOpen(record, windowAt(start), value);
            // A record at the same time came before: every window this one needs exists already.
            if (value.timestamp >= timestamp) return;
            previousTimestamp = value.timestamp;
          } else {
            leftAgg = value;
            previousTimestamp = value.timestamp;
            break;
          }
        }
        if (previousTimestamp !== undefined) {
          const previousRightStart = previousTimestamp + 1;
          if (!starts.has(previousRightStart) && previousRightStart + difference >= timestamp) {
            this.updateIfOpen(record, windowAt(previousRightStart), { value: this.aggregator.init(), timestamp });
          }
        }
        if (!leftExists) {
          const leftNotEmpty = previousTimestamp !== undefined && timestamp - difference <= previousTimestamp;
          const current = leftNotEmpty && leftAgg ? leftAgg.value : this.aggregator.init();
          this.updateIfOpen(record, windowAt(timestamp - difference), { value: current, timestamp });
        }
        if (!rightExists) this.createRightWindow(record, rightAgg);
      }

      /** Records before the difference: all go into `[0, difference]`, and right windows are made as later ones come. */
      private processEarly(record: StreamRecord<K, V>): void {
        const timestamp = record.timestamp;
        const starts = new Set<number>();
        let combined: StoredWindow<A> | undefined;
        let rightAgg: ValueAndTimestamp<A> | undefined;
        let rightExists = false;
        let previousTimestamp: number | undefined;
        for (const window of this.windowsOf(record.key, 0, timestamp + 1, false)) {
          starts.add(window.start);
          if (window.start === 0) {
            combined = window;
            if (window.value.timestamp < timestamp) previousTimestamp = window.value.timestamp;
          } else if (window.start <= timestamp) {
            rightAgg = window.value;
            this.updateIfOpen(record, windowAt(window.start), window.value);
          } else {
            rightExists = true;
          }
        }
        // Without a right window found, the combined window holds exactly the records of this record's right window.
        if (rightAgg === undefined && combined !== undefined && combined.value.timestamp > timestamp) rightAgg = combined.value;
        if (!rightExists) this.createRightWindow(record, rightAgg);
        if (previousTimestamp !== undefined && !starts.has(previousTimestamp + 1)) {
          this.updateIfOpen(record, windowAt(previousTimestamp + 1), { value: this.aggregator.init(), timestamp });
        }
        this.updateIfOpen(record, windowAt(0), combined?.value ?? { value: this.aggregator.init(), timestamp });
      }

      /** The record's right window, when later records fall in it: it holds what `rightAgg` holds. */
      private createRightWindow(record: StreamRecord<K, V>, rightAgg: ValueAndTimestamp<A> | undefined): void {
        if (rightAgg === undefined || rightAgg.timestamp <= record.timestamp) return;
        this.putWindow(record.key, windowAt(record.timestamp + 1), rightAgg, null, record.headers);
      }

      private updateIfOpen(record: StreamRecord<K, V>, window: Window, current: { value: A | null; timestamp: number }): void {
        if (window.end < this.closeTime) dropLate(this.context, `[${window.start},${window.end}]`, this.closeTime);
        else this.update(record, window, current);
      }
    })(storeName, oldValues, aggregator) as Processor;
}
