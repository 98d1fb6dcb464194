import { Serdes, StreamsBuilder, Stores, TopologyTestDriver } from '../../index';
import type { FixedKeyProcessorContext, FixedKeyProcessorSupplier, KeyValueStore } from '../../index';

describe('KStream.processValues', () => {
  it("runs a fixed-key processor with a store, keeps the stream's keys, and needs no repartition after it (the README's example)", async () => {
    const builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('seen'), Serdes.String(), Serdes.Long()));
    // Appends to each value how many records its key has had.
    const numbered: FixedKeyProcessorSupplier<string, string, string> = () => {
      let context: FixedKeyProcessorContext<string, string>;
      let seen: KeyValueStore<string, number>;
      return {
        init(c) {
          context = c;
          seen = c.getStateStore<KeyValueStore<string, number>>('seen');
        },
        process(record) {
          const count = (seen.get(record.key) ?? 0) + 1;
          seen.put(record.key, count);
          context.forward(record.withValue(`${record.value} #${count}`)); // withValue keeps the key
        },
      };
    };
    builder
      .stream<string, string>('orders', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .processValues(numbered, { stores: ['seen'] })
      .to('numbered-orders');
    const topology = builder.build();

    expect(topology.toString()).not.toContain('repartition');
    const driver = new TopologyTestDriver(topology, { 'application.id': 'numbered' }, 0);
    const orders = driver.createInputTopic('orders', Serdes.String(), Serdes.String());
    orders.pipeInput('ada', 'tea', 1);
    orders.pipeInput('bob', 'cake', 2);
    orders.pipeInput('ada', 'scone', 3);
    expect(driver.createOutputTopic('numbered-orders', Serdes.String(), Serdes.String()).readKeyValuesToList()).toEqual([
      { key: 'ada', value: 'tea #1' },
      { key: 'bob', value: 'cake #1' },
      { key: 'ada', value: 'scone #2' },
    ]);
    await driver.close();
  });
});
