import type { ProcessorContext } from '../../processor/processor';
import type { Headers, StreamRecord } from '../../processor/record';
import { type CachedUpdate, isCachingStore, type StateStore, type ValueAndTimestamp, type Windowed } from '../../state/store';
import type { Change } from './change';
import { asCurrentNode } from './drop';
import type { OldValues } from './old-values';

type Update = CachedUpdate<unknown, unknown>;

/**
 * How a table processor's updates go downstream (Kafka Streams' `TimestampedTupleForwarder` and cache flush
 * listeners): the processor forwards each update itself, unless its store has a caching layer; the store then
 * forwards one update per key when it writes its cache through, from the processor's node.
 */
export class TableForwarder {
  private readonly cached: boolean;

  private constructor(
    private readonly context: ProcessorContext<unknown, unknown>,
    store: StateStore | undefined,
    oldValues: OldValues,
    toRecord: (update: Update) => StreamRecord<unknown, Change<unknown>>,
  ) {
    this.cached = store !== undefined && isCachingStore(store);
    if (store !== undefined && isCachingStore(store)) {
      const asNode = asCurrentNode(context);
      store.setFlushListener((update) => asNode(() => context.forward(toRecord(update))), oldValues.send);
    }
  }

  /** For a store of values with timestamps (key-value and window stores): an update carries its value's timestamp. */
  static timestamped(context: ProcessorContext<unknown, unknown>, store: StateStore | undefined, oldValues: OldValues): TableForwarder {
    return new TableForwarder(context, store, oldValues, (update) => {
      const newValue = update.newValue as ValueAndTimestamp<unknown> | null;
      const oldValue = update.oldValue as ValueAndTimestamp<unknown> | null;
      return {
        key: update.key,
        value: { newValue: newValue?.value ?? null, oldValue: oldValue?.value ?? null },
        timestamp: newValue?.timestamp ?? update.timestamp,
        headers: (update.headers as Headers | undefined) ?? {},
      };
    });
  }

  /** For a session store: an update is stamped with its session's end, as Kafka Streams sends it. */
  static session(context: ProcessorContext<unknown, unknown>, store: StateStore, oldValues: OldValues): TableForwarder {
    return new TableForwarder(context, store, oldValues, (update) => ({
      key: update.key,
      value: { newValue: update.newValue, oldValue: update.oldValue },
      timestamp: (update.key as Windowed<unknown>).window.end,
      headers: (update.headers as Headers | undefined) ?? {},
    }));
  }

  /** Forwards an update now, unless the store's cache will. */
  maybeForward(record: StreamRecord<unknown, Change<unknown>>): void {
    if (!this.cached) this.context.forward(record);
  }
}
