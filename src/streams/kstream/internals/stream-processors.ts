import type { KeyValue } from '../../state/store';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';

/**
 * The stateless KStream operations as processors. Each forwards what the operation's function returns and
 * keeps the record's timestamp and headers, as Kafka Streams does.
 */
abstract class ForwardingProcessor<K, V> implements Processor<K, V, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
  }

  abstract process(record: StreamRecord<K, V>): void;
}

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;

export function filterProcessor<K, V>(predicate: (key: K, value: V) => boolean, negate: boolean): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        if (predicate(record.key, record.value) !== negate) this.context.forward(record);
      }
    })() as Processor;
}

export function mapProcessor<K, V, K2, V2>(mapper: (key: K, value: V) => KeyValue<K2, V2>): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        const kv = mapper(record.key, record.value);
        this.context.forward({ key: kv.key, value: kv.value, timestamp: record.timestamp, headers: record.headers });
      }
    })() as Processor;
}

export function mapValuesProcessor<K, V, V2>(mapper: (value: V, key: K) => V2): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        this.context.forward({
          key: record.key,
          value: mapper(record.value, record.key),
          timestamp: record.timestamp,
          headers: record.headers,
        });
      }
    })() as Processor;
}

export function flatMapProcessor<K, V, K2, V2>(mapper: (key: K, value: V) => Iterable<KeyValue<K2, V2>>): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        for (const kv of mapper(record.key, record.value)) {
          this.context.forward({ key: kv.key, value: kv.value, timestamp: record.timestamp, headers: record.headers });
        }
      }
    })() as Processor;
}

export function flatMapValuesProcessor<K, V, V2>(mapper: (value: V, key: K) => Iterable<V2>): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        for (const value of mapper(record.value, record.key)) {
          this.context.forward({ key: record.key, value, timestamp: record.timestamp, headers: record.headers });
        }
      }
    })() as Processor;
}

export function selectKeyProcessor<K, V, K2>(selector: (key: K, value: V) => K2): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        this.context.forward({
          key: selector(record.key, record.value),
          value: record.value,
          timestamp: record.timestamp,
          headers: record.headers,
        });
      }
    })() as Processor;
}

/** `peek` forwards after calling the action; `foreach` (forward = false) is terminal. */
export function peekProcessor<K, V>(action: (key: K, value: V) => void, forward: boolean): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        action(record.key, record.value);
        if (forward) this.context.forward(record);
      }
    })() as Processor;
}

export function publishEventProcessor(eventType: string): Supplier {
  return () =>
    new (class extends ForwardingProcessor<unknown, unknown> {
      process(record: StreamRecord<unknown, unknown>): void {
        this.context.publishEvent(eventType, record);
      }
    })() as Processor;
}

export function passThroughProcessor(): Supplier {
  return () =>
    new (class extends ForwardingProcessor<unknown, unknown> {
      process(record: StreamRecord<unknown, unknown>): void {
        this.context.forward(record);
      }
    })() as Processor;
}

/** `split()`: each record goes to the first branch whose predicate matches (the default branch has none). */
export function branchProcessor<K, V>(
  branches: readonly { child: string; predicate?: (key: K, value: V) => boolean }[],
): Supplier {
  return () =>
    new (class extends ForwardingProcessor<K, V> {
      process(record: StreamRecord<K, V>): void {
        for (const branch of branches) {
          if (!branch.predicate || branch.predicate(record.key, record.value)) {
            this.context.forward(record, branch.child);
            return;
          }
        }
      }
    })() as Processor;
}

/** Drops records with a null key: what Kafka Streams puts before a repartition topic of a grouping. */
export function nullKeyFilterProcessor(): Supplier {
  return filterProcessor<unknown, unknown>((key) => key !== null && key !== undefined, false);
}
