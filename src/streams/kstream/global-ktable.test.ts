import { Serdes, Stores, StreamsBuilder, Topology, TopologyTestDriver } from '../../index';

function enrichment(): StreamsBuilder {
  const builder = new StreamsBuilder();
  const products = builder.globalTable<string, string>('products', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  builder
    .stream<string, string>('orders', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .leftJoin(products, (_orderId, productId) => productId, (productId, product) => `${productId}: ${product ?? 'unknown'}`)
    .to('enriched-orders');
  return builder;
}

describe('GlobalKTable', () => {
  it("joins each order with the product its value names, from the whole products topic (the README's example)", async () => {
    const topology = enrichment().build();
    expect(topology.toString()).toContain('for global store (will not generate tasks)');
    const driver = new TopologyTestDriver(topology, { 'application.id': 'enrich' }, 0);
    const products = driver.createInputTopic('products', Serdes.String(), Serdes.String());
    const orders = driver.createInputTopic('orders', Serdes.String(), Serdes.String());
    products.pipeInput('p1', 'tea', 1);
    orders.pipeInput('o1', 'p1', 2);
    orders.pipeInput('o2', 'p2', 3);
    products.pipeInput('p2', 'cake', 4);
    orders.pipeInput('o3', 'p2', 5);
    expect(driver.createOutputTopic('enriched-orders', Serdes.String(), Serdes.String()).readKeyValuesToList()).toEqual([
      { key: 'o1', value: 'p1: tea' },
      { key: 'o2', value: 'p2: unknown' },
      { key: 'o3', value: 'p2: cake' },
    ]);
    expect(driver.getKeyValueStore<string, { value: string }>('products-STATE-STORE-0000000000').get('p2')?.value).toBe('cake');
    await driver.close();
  });

  it('refuses a global store with a changelog: it is restored from its topic', () => {
    // Stores' builders log unless told otherwise.
    const logged = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('g'), Serdes.String(), Serdes.String());
    expect(() => new Topology().addGlobalStore(logged, 'src', {}, 't', 'proc', () => ({ process: () => undefined }))).toThrow(
      /global store 'g' must not have a changelog/,
    );
  });
});
