import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import { StreamsBuilder } from './streams-builder';

/**
 * Counts the words of each line under the line's key: one input line updates its key's count once per word, all
 * before the commit that follows the line (no repartition: the test driver, as Kafka Streams', commits after every
 * record, those read back from a repartition topic included).
 */
async function countsOf(line: string, config: Record<string, unknown>): Promise<unknown[]> {
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>('lines')
    .flatMapValues((value) => value.split(' '))
    .groupByKey()
    .count()
    .toStream()
    .to('counts', { valueSerde: Serdes.Long() });
  const driver = new TopologyTestDriver(builder.build(), { 'application.id': 'cache-size', ...config }, 0);
  driver.createInputTopic('lines', Serdes.String(), Serdes.String()).pipeInput('k', line);
  const counts = driver.createOutputTopic('counts', Serdes.String(), Serdes.Long()).readKeyValuesToList();
  await driver.close();
  return counts;
}

describe('RecordCache size', () => {
  it('caches by default: one update per key at the commit', async () => {
    expect(await countsOf('a a a', {})).toEqual([{ key: 'k', value: 3 }]);
  });

  it.each([{ 'statestore.cache.max.bytes': 0 }, { 'cache.max.bytes.buffering': 0 }])('forwards every update with %j', async (config) => {
    expect(await countsOf('a a a', config)).toEqual([1, 2, 3].map((value) => ({ key: 'k', value })));
  });

  it('takes statestore.cache.max.bytes over the deprecated cache.max.bytes.buffering', async () => {
    expect(await countsOf('a a', { 'statestore.cache.max.bytes': 0, 'cache.max.bytes.buffering': 1024 })).toHaveLength(2);
    expect(await countsOf('a a', { 'statestore.cache.max.bytes': 1024, 'cache.max.bytes.buffering': 0 })).toHaveLength(1);
  });
});

describe('a cached table', () => {
  /** `table(topic, materialized).toStream()` fed the updates of the Must-show case, as Kafka Streams' test would be. */
  async function changes(cachingEnabled: boolean | undefined): Promise<unknown[]> {
    const builder = new StreamsBuilder();
    const materialized = cachingEnabled === undefined ? { storeName: 'table' } : { storeName: 'table', cachingEnabled };
    builder.table<string, string>('in', {}, materialized).toStream().to('out');
    const driver = new TopologyTestDriver(builder.build(), { 'application.id': 'cached-table' }, 0);
    const input = driver.createInputTopic('in', Serdes.String(), Serdes.String());
    input.pipeInput('k1', 'v1');
    input.pipeInput('k1', null);
    input.pipeInput('k1', null);
    input.pipeInput('k2', null);
    const out = driver.createOutputTopic('out', Serdes.String(), Serdes.String()).readKeyValuesToList();
    await driver.close();
    return out;
  }

  it('forwards no update whose old and new values are both null (Kafka Streams emits k1=v1, k1=null)', async () => {
    expect(await changes(undefined)).toEqual([
      { key: 'k1', value: 'v1' },
      { key: 'k1', value: null },
    ]);
  });

  it('forwards every update with caching disabled, as Kafka Streams does', async () => {
    expect(await changes(false)).toEqual([
      { key: 'k1', value: 'v1' },
      { key: 'k1', value: null },
      { key: 'k1', value: null },
      { key: 'k2', value: null },
    ]);
  });
});
