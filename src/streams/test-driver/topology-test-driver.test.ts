import { ProcessorException } from '../../errors';
import { StreamsBuilder } from '../kstream/streams-builder';
import { JoinWindows } from '../kstream/windows';
import type { ProcessorContext } from '../processor/processor';
import { Serdes } from '../serdes/serdes';
import type { KeyValueStore } from '../state/store';
import { Stores } from '../state/stores';
import { Topology } from '../topology/topology';
import { TopologyTestDriver } from './topology-test-driver';

/** A processor that forwards, per punctuation, the timestamp it fired at. */
function punctuatingTopology(type: 'STREAM_TIME' | 'WALL_CLOCK_TIME', interval: number): Topology {
  return new Topology()
    .addSource('in', 'input', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor(
      'ticker',
      () => {
        let ctx: ProcessorContext<string, string>;
        return {
          init(context: ProcessorContext<string, string>) {
            ctx = context;
            context.schedule(interval, type, (ts) => ctx.forward({ key: 'tick', value: String(ts), timestamp: ts, headers: {} }));
          },
          process() {},
        };
      },
      'in',
    )
    .addSink('out', 'output', { keySerde: Serdes.String(), valueSerde: Serdes.String() }, 'ticker');
}

describe('TopologyTestDriver', () => {
  it('fires stream-time punctuations with the first record, then on the interval grid', async () => {
    const driver = new TopologyTestDriver(punctuatingTopology('STREAM_TIME', 10), {}, 0);
    const input = driver.createInputTopic('input', Serdes.String(), Serdes.String());
    const output = driver.createOutputTopic('output', Serdes.String(), Serdes.String());
    input.pipeInput('k', 'v', 3);
    input.pipeInput('k', 'v', 9);
    input.pipeInput('k', 'v', 10);
    input.pipeInput('k', 'v', 5);
    input.pipeInput('k', 'v', 35);
    expect(output.readValuesToList()).toEqual(['3', '10', '35']);
    await driver.close();
  });

  it('fires wall-clock punctuations only as the wall clock advances', async () => {
    const driver = new TopologyTestDriver(punctuatingTopology('WALL_CLOCK_TIME', 100), {}, 1000);
    const input = driver.createInputTopic('input', Serdes.String(), Serdes.String());
    const output = driver.createOutputTopic('output', Serdes.String(), Serdes.String());
    input.pipeInput('k', 'v', 5000);
    expect(output.isEmpty()).toBe(true);
    driver.advanceWallClockTime(99);
    expect(output.isEmpty()).toBe(true);
    driver.advanceWallClockTime(1);
    driver.advanceWallClockTime(250);
    expect(output.readValuesToList()).toEqual(['1100', '1350']);
    await driver.close();
  });

  it('reports a failing processor with the name of its node and the task', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('input')
      .mapValues((v) => v.toUpperCase(), { name: 'upper' })
      .filter(() => {
        throw new Error('boom');
      }, { name: 'exploding-filter' })
      .to('output');
    const driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('input', Serdes.String(), Serdes.String());
    let error: unknown;
    try {
      input.pipeInput('k', 'v');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProcessorException);
    expect((error as Error).message).toBe("Processor 'exploding-filter' of task 0_0 failed: boom");
    await driver.close();
  });

  describe('topology event types', () => {
    it('publishes what a processor sends to a declared type, and fails a processor that names an undeclared one', async () => {
      const topology = new Topology()
        .addEventType('alerts')
        .addSource('in', 'input', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .addProcessor(
          'alerting',
          () => {
            let context: ProcessorContext<never, never>;
            return {
              init(ctx: ProcessorContext<never, never>) {
                context = ctx;
              },
              process(record: { key: string | null; value: string | null; timestamp: number; headers: Record<string, Buffer> }) {
                context.publishEvent(record.value === 'typo' ? 'alert' : 'alerts', record);
              },
            };
          },
          'in',
        );
      const driver = new TopologyTestDriver(topology);
      const input = driver.createInputTopic('input', Serdes.String(), Serdes.String());
      input.pipeInput('k1', 'fire', 5);
      expect(driver.publishedEvents('alerts')).toEqual([{ type: 'alerts', key: 'k1', value: 'fire', timestamp: 5 }]);
      expect(() => input.pipeInput('k2', 'typo', 6)).toThrow("'alert' is not an event type of the topology (Topology.addEventType)");
      await driver.close();
    });

    it.each([
      ['', "event type '' must be 1 to 64 letters, digits, '.', '_' or '-'"],
      ['a/b', "event type 'a/b' must be 1 to 64 letters, digits, '.', '_' or '-'"],
      ['x'.repeat(65), 'must be 1 to 64 letters'],
      ['state', "event type 'state' is reserved"],
      ['dropped', "event type 'dropped' is reserved"],
    ])('refuses the event type %j', (name, message) => {
      expect(() => new Topology().addEventType(name)).toThrow(message);
    });
  });

  it('inserts a repartition sub-topology when grouping by a new key', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('orders')
      .groupBy((_k, v) => v.split(':')[0]!, { name: 'by-customer' })
      .count()
      .toStream()
      .to('counts', { valueSerde: Serdes.Long() });
    const topology = builder.build();
    const description = topology.describe();
    expect(description.subTopologies).toHaveLength(2);
    const [first, second] = description.subTopologies;
    expect(first!.nodes.find((n) => n.type === 'SINK')!.topic).toBe('by-customer-repartition');
    expect(second!.nodes[0]).toMatchObject({ type: 'SOURCE', name: 'by-customer-repartition-source', topics: ['by-customer-repartition'] });
    expect(second!.nodes.find((n) => n.type === 'PROCESSOR')!.stores).toEqual(['KSTREAM-AGGREGATE-STATE-STORE-0000000002']);
    expect(topology.repartitionTopics().map((t) => t.name)).toEqual(['by-customer-repartition']);

    const driver = new TopologyTestDriver(topology, { 'application.id': 'orders-app' }, 0);
    const input = driver.createInputTopic('orders', Serdes.String(), Serdes.String());
    const output = driver.createOutputTopic('counts', Serdes.String(), Serdes.Long());
    input.pipeInput('1', 'alice:book');
    input.pipeInput('2', 'bob:pen');
    input.pipeInput('3', 'alice:pen');
    expect(output.readKeyValuesToList()).toEqual([
      { key: 'alice', value: 1 },
      { key: 'bob', value: 1 },
      { key: 'alice', value: 2 },
    ]);
    await driver.close();
  });

  it("commits after every record, as Kafka Streams' driver does: a cached count emits once per record read back from its repartition topic", async () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('lines')
      .flatMapValues((line) => line.split(' '))
      .groupBy((_k, word) => word)
      .count()
      .toStream()
      .to('counts', { valueSerde: Serdes.Long() });
    const driver = new TopologyTestDriver(builder.build(), { 'application.id': 'per-record' }, 0);
    driver.createInputTopic('lines', Serdes.String(), Serdes.String()).pipeInput('k', 'a b a');
    // One line, three repartitioned words: each word is its own record and its own commit, so the cache holds none.
    expect(driver.createOutputTopic('counts', Serdes.String(), Serdes.Long()).readKeyValuesToList()).toEqual([
      { key: 'a', value: 1 },
      { key: 'b', value: 1 },
      { key: 'a', value: 2 },
    ]);
    await driver.close();
  });

  it("emits an outer join's unmatched records as soon as their window closes, unless an emit interval is configured", async () => {
    const outer = async (config: Record<string, unknown>): Promise<(string | null)[]> => {
      const builder = new StreamsBuilder();
      const right = builder.stream<string, string>('right');
      builder
        .stream<string, string>('left')
        .outerJoin(right, (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceAndGrace(10, 0))
        .to('joined');
      const driver = new TopologyTestDriver(builder.build(), { 'application.id': 'outer', ...config }, 0);
      const left = driver.createInputTopic('left', Serdes.String(), Serdes.String());
      left.pipeInput('a', 'x', 0);
      left.pipeInput('b', 'y', 50); // stream time 50: a's window [0, 10] has closed, and the first emit is due at once
      left.pipeInput('c', 'z', 100); // b's window has closed: emitted unless an emit interval holds it back
      const joined = driver.createOutputTopic('joined', Serdes.String(), Serdes.String()).readValuesToList();
      await driver.close();
      return joined;
    };
    expect(await outer({})).toEqual(['x+null', 'y+null']);
    // The runtime's default: at most one emit per second of wall-clock time, and the driver's clock stands still.
    expect(await outer({ '__emit.interval.ms.kstreams.outer.join.spurious.results.fix__': 1000 })).toEqual(['x+null']);
  });

  it('re-aggregates a table grouping with subtract and add', async () => {
    const builder = new StreamsBuilder();
    builder
      .table<string, string>('users', {}, { storeName: 'users' })
      .groupBy((_user, city) => ({ key: city, value: city }))
      .count({ storeName: 'users-per-city' })
      .toStream()
      .to('cities', { valueSerde: Serdes.Long() });
    const driver = new TopologyTestDriver(builder.build(), {}, 0);
    const users = driver.createInputTopic('users', Serdes.String(), Serdes.String());
    const cities = driver.createOutputTopic('cities', Serdes.String(), Serdes.Long());
    users.pipeInput('ann', 'paris');
    users.pipeInput('bob', 'paris');
    users.pipeInput('ann', 'rome');
    users.pipeInput('bob', null);
    expect(cities.readKeyValuesToMap()).toEqual(new Map([['paris', 0], ['rome', 1]]));
    await driver.close();
  });

  it('splits a stream into named branches and merges them back', async () => {
    const builder = new StreamsBuilder();
    const branches = builder
      .stream<string, string>('numbers')
      .split({ name: 'n-' })
      .branch((_k, v) => Number(v) % 2 === 0, { name: 'even' })
      .defaultBranch({ name: 'odd' });
    expect([...branches.keys()]).toEqual(['n-even', 'n-odd']);
    branches.get('n-even')!.mapValues((v) => `even ${v}`).merge(branches.get('n-odd')!.mapValues((v) => `odd ${v}`)).to('labelled');
    const driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('numbers', Serdes.String(), Serdes.String());
    const output = driver.createOutputTopic('labelled', Serdes.String(), Serdes.String());
    input.pipeValueList(['1', '2', '3']);
    expect(output.readValuesToList()).toEqual(['odd 1', 'even 2', 'odd 3']);
    await driver.close();
  });

  it('stamps a plain store\'s changelog records with the timestamp of the record being processed, not stream time', async () => {
    const topology = new Topology()
      .addSource('in', 'input', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .addProcessor(
        'remember',
        () => {
          let store: KeyValueStore<string, string>;
          return {
            init(context: ProcessorContext<string, string>) {
              store = context.getStateStore<KeyValueStore<string, string>>('last');
              context.schedule(1000, 'WALL_CLOCK_TIME', () => store.put('tick', 'tock'));
            },
            process(record: { key: string | null; value: string | null }) {
              store.put(record.key!, record.value!);
            },
          };
        },
        'in',
      )
      .addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('last'), Serdes.String(), Serdes.String()), 'remember');
    const driver = new TopologyTestDriver(topology, { 'application.id': 'app' }, 0);
    const input = driver.createInputTopic('input', Serdes.String(), Serdes.String());
    const changelog = driver.createOutputTopic('app-last-changelog', Serdes.String(), Serdes.String());
    input.pipeInput('a', 'late', 500);
    input.pipeInput('b', 'early', 100);
    driver.advanceWallClockTime(1000);
    expect(changelog.readRecordsToList().map((r) => [r.key, r.timestamp])).toEqual([
      ['a', 500],
      ['b', 100],
      ['tick', 1000],
    ]);
    await driver.close();
  });
});
