import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import { StreamsBuilder } from './streams-builder';

const STRING = Serdes.String();
const SERDES = { keySerde: STRING, valueSerde: STRING };

const drivers: TopologyTestDriver[] = [];

afterEach(async () => {
  for (const driver of drivers.splice(0)) await driver.close();
});

/** A driver of the topology `build` makes, the topology's stores and its repartition topics. */
function start(build: (builder: StreamsBuilder) => void): { driver: TopologyTestDriver; stores: string[]; repartitionTopics: string[] } {
  const builder = new StreamsBuilder();
  build(builder);
  const topology = builder.build();
  const driver = new TopologyTestDriver(topology, { 'application.id': 'table-source' }, 0);
  drivers.push(driver);
  return {
    driver,
    stores: [...topology.stores()].map((store) => store.name),
    repartitionTopics: topology.repartitionTopics().map((topic) => topic.name),
  };
}

describe('source tables (builder.table, toTable), materialized as Kafka Streams does', () => {
  it('an unmaterialized table has no store and forwards every update', () => {
    const { driver, stores } = start((b) => b.stream<string, string>('in', SERDES).toTable().toStream().to('out', SERDES));
    expect(stores).toEqual([]);
    const input = driver.createInputTopic('in', STRING, STRING);
    input.pipeInput('a', '1', 1);
    input.pipeInput('a', '2', 2);
    input.pipeInput('a', null, 3);
    expect(driver.createOutputTopic('out', STRING, STRING).readKeyValuesToList()).toEqual([
      { key: 'a', value: '1' },
      { key: 'a', value: '2' },
      { key: 'a', value: null },
    ]);
  });

  it('a join materializes the table it reads, under the name drawn when the table was made', () => {
    const { driver, stores } = start((b) => {
      const table = b.stream<string, string>('table-in', SERDES).toTable();
      b.stream<string, string>('in', SERDES).join(table, (value, tableValue) => `${value}+${tableValue}`).to('out', SERDES);
    });
    expect(stores).toEqual(['KSTREAM-TOTABLE-STATE-STORE-0000000002']);
    driver.createInputTopic('table-in', STRING, STRING).pipeInput('k', 't', 1);
    driver.createInputTopic('in', STRING, STRING).pipeInput('k', 's', 2);
    expect(driver.createOutputTopic('out', STRING, STRING).readValuesToList()).toEqual(['s+t']);
  });

  it('a filter downstream reads the unmaterialized source table through its parent when joined', () => {
    const { driver, stores } = start((b) => {
      const table = b.table<string, string>('t', SERDES).filter((_k, v) => v !== 'hidden');
      b.stream<string, string>('in', SERDES).leftJoin(table, (value, tableValue) => `${value}+${tableValue}`).to('out', SERDES);
    });
    expect(stores).toEqual(['t-STATE-STORE-0000000000']);
    const t = driver.createInputTopic('t', STRING, STRING);
    t.pipeInput('a', 'shown', 1);
    t.pipeInput('b', 'hidden', 1);
    const input = driver.createInputTopic('in', STRING, STRING);
    input.pipeInput('a', 'x', 2);
    input.pipeInput('b', 'y', 2);
    expect(driver.createOutputTopic('out', STRING, STRING).readValuesToList()).toEqual(['x+shown', 'y+null']);
  });

  it('toTable of a re-keyed stream goes through a repartition topic named after the table', () => {
    const { driver, repartitionTopics } = start((b) =>
      b.stream<string, string>('in', SERDES).selectKey((_k, v) => v.split(':')[0]!).toTable({ name: 'latest' }).toStream().to('out', SERDES),
    );
    expect(repartitionTopics).toEqual(['latest-repartition']);
    driver.createInputTopic('in', STRING, STRING).pipeInput('x', 'a:1', 1);
    expect(driver.createOutputTopic('out', STRING, STRING).readKeyValuesToList()).toEqual([{ key: 'a', value: 'a:1' }]);
  });
});

describe('split', () => {
  it('keys the branches of an unnamed split by the generated split name, as Kafka Streams does', () => {
    const builder = new StreamsBuilder();
    const branches = builder
      .stream<string, string>('in', SERDES)
      .split()
      .branch((_k, v) => v === 'a')
      .defaultBranch();
    expect([...branches.keys()]).toEqual(['KSTREAM-BRANCH-00000000011', 'KSTREAM-BRANCH-00000000010']);
  });
});
