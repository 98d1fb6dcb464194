import { TopologyException } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { Stores } from '../state/stores';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import { Joined, Materialized } from './options';
import { StreamsBuilder } from './streams-builder';

const versioned = (name: string) => Materialized.as<string, string>(Stores.persistentVersionedKeyValueStore(name, 10_000));

describe('versioned tables in the DSL', () => {
  it('takes a grace period only for a join with a versioned table, and a versioned store only for a source table', () => {
    const b = new StreamsBuilder();
    const plain = b.table<string, string>('plain');
    const stream = b.stream<string, string>('s');
    expect(() => stream.join(plain, (v, t) => `${v}${t}`, Joined.withGracePeriod(1_000))).toThrow(TopologyException);
    const table = b.table<string, string>('t', {}, versioned('versions'));
    expect(() => stream.join(table, (v, t) => `${v}${t}`, Joined.withGracePeriod(-1))).toThrow(TopologyException);
    expect(() => b.stream<string, string>('c').groupByKey().count(Materialized.as(Stores.persistentVersionedKeyValueStore('counts', 1_000)))).toThrow(
      TopologyException,
    );
    expect(() => table.filter(() => true, undefined, versioned('filtered'))).toThrow(TopologyException);
  });

  it('names the join buffer after the join, logs it, and keeps the versioned store uncached with a versioned changelog', () => {
    const b = new StreamsBuilder();
    const table = b.table<string, string>('t', {}, versioned('versions'));
    b.stream<string, string>('s').join(table, (v, t) => `${v}+${t}`, { name: 'priced', gracePeriodMs: 500 }).to('out');
    const topology = b.build();
    expect(topology.store('priced-Buffer')?.loggingEnabled).toBe(true);
    expect(topology.store('versions')?.cachingEnabled).toBe(false);
    expect(topology.store('versions')?.logConfig).toEqual({ 'cleanup.policy': 'compact', 'min.compaction.lag.ms': String(10_000 + 86_400_000) });
  });

  it('joins buffered stream records once stream time passes them by the grace, as of their own time', async () => {
    const b = new StreamsBuilder();
    const table = b.table<string, string>('t', {}, versioned('versions'));
    b.stream<string, string>('s').leftJoin(table, (v, t) => `${v}+${t}`, Joined.withGracePeriod(1_000)).to('out');
    const driver = new TopologyTestDriver(b.build(), { 'application.id': 'versioned-dsl' }, 0);
    try {
      const t = driver.createInputTopic('t', Serdes.String(), Serdes.String());
      const s = driver.createInputTopic('s', Serdes.String(), Serdes.String());
      const out = driver.createOutputTopic('out', Serdes.String(), Serdes.String());
      s.pipeInput('k', 'early', 1_000);
      t.pipeInput('k', 'late-update', 900);
      expect(out.readValuesToList()).toEqual([]);
      s.pipeInput('k', 'moves-time', 2_000);
      expect(out.readValuesToList()).toEqual(['early+late-update']);
      // Older than the buffer's stream time minus the grace: joined at once.
      s.pipeInput('k', 'too-late', 500);
      expect(out.readValuesToList()).toEqual(['too-late+null']);
      expect(driver.getVersionedKeyValueStore<string, string>('versions').get('k', 950)).toEqual({ value: 'late-update', timestamp: 900 });
    } finally {
      await driver.close();
    }
  });
});
