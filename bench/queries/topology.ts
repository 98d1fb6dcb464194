/**
 * The topology of the query benchmark, as `sluice start` loads it: every record of the input topic (string key
 * and value) goes to the timestamped key-value store `values`. The input topic comes from SLUICE_BENCH_INPUT_TOPIC.
 */
import type { TopologyDefinition } from '../../src/host/topology-definition';
import type { ProcessorContext } from '../../src/streams/processor/processor';
import { stringSerde } from '../../src/streams/serdes/string';
import type { TimestampedKeyValueStore } from '../../src/streams/state/store';
import { Stores } from '../../src/streams/state/stores';
import { Topology } from '../../src/streams/topology/topology';

export const BENCH_STORE = 'values';

export const queryBenchTopology: TopologyDefinition = {
  name: 'io.sluice.bench.QueryBench',
  version: '1.0.0',
  description: 'Keeps the latest value of every key of the input topic in the store `values`',
  aliases: ['query-bench'],
  build: () => {
    const input = process.env.SLUICE_BENCH_INPUT_TOPIC;
    if (!input) throw new Error('SLUICE_BENCH_INPUT_TOPIC is not set');
    return new Topology()
      .addSource<string, string>('input', input, { keySerde: stringSerde, valueSerde: stringSerde })
      .addProcessor<string, string, never, never>(
        'keep-latest',
        // One processor per task, each with the store of its own partition.
        () => {
          let store!: TimestampedKeyValueStore<string, string>;
          return {
            init(context: ProcessorContext<never, never>) {
              store = context.getStateStore(BENCH_STORE);
            },
            process(record) {
              store.put(record.key, { value: record.value, timestamp: record.timestamp });
            },
          };
        },
        'input',
      )
      .addStateStore(
        Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore(BENCH_STORE), stringSerde, stringSerde),
        'keep-latest',
      );
  },
};
