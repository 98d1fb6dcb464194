import type { FixedKeyProcessorSupplier, ProcessorSupplier } from '../processor/processor';
import { Serdes } from '../serdes/serdes';
import type { StateStore } from '../state/store';
import { Stores, type StoreBuilder } from '../state/stores';
import { Joined, Materialized } from './options';
import { StreamsBuilder } from './streams-builder';
import { BufferConfig, Suppressed } from './suppressed';
import { JoinWindows, SessionWindows, SlidingWindows, TimeWindows } from './windows';

const forward: ProcessorSupplier<string, string, string, string> = () => ({ process: () => undefined });
const forwardValues: FixedKeyProcessorSupplier<string, string, string> = () => ({ process: () => undefined });

/**
 * Topologies as Kafka Streams 3.9.1 describes them (`Topology.describe().toString()`), recorded from its own code:
 * `fixtures/DescribeTopologies.java` builds the same topologies in Java. To regenerate, with the jars that
 * `npm run bench:wordcount` fetches into ~/.cache/sluice/kafka-streams-3.9.1/libs:
 *   javac -cp "$LIBS/*" -d /tmp/ks fixtures/DescribeTopologies.java && java -cp "/tmp/ks:$LIBS/*" DescribeTopologies
 * Sluice must name every node, store and internal topic as Kafka Streams does, so that an application moved from
 * Java keeps its changelogs and repartition topics.
 */
const CASES: { name: string; build: (b: StreamsBuilder) => void; kafkaStreams: string }[] = [
  {
    name: 'word-count',
    build: (b) => b.stream<string, string>('streams-plaintext-input').flatMapValues((v) => v.split(/\W+/)).groupBy((_k, v) => v).count().toStream().to('streams-wordcount-output'),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [streams-plaintext-input])
      --> KSTREAM-FLATMAPVALUES-0000000001
    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])
      --> KSTREAM-KEY-SELECT-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])
      --> KSTREAM-FILTER-0000000006
      <-- KSTREAM-FLATMAPVALUES-0000000001
    Processor: KSTREAM-FILTER-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-KEY-SELECT-0000000002
    Sink: KSTREAM-SINK-0000000005 (topic: KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition)
      <-- KSTREAM-FILTER-0000000006

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000007 (topics: [KSTREAM-AGGREGATE-STATE-STORE-0000000003-repartition])
      --> KSTREAM-AGGREGATE-0000000004
    Processor: KSTREAM-AGGREGATE-0000000004 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000003])
      --> KTABLE-TOSTREAM-0000000008
      <-- KSTREAM-SOURCE-0000000007
    Processor: KTABLE-TOSTREAM-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000009
      <-- KSTREAM-AGGREGATE-0000000004
    Sink: KSTREAM-SINK-0000000009 (topic: streams-wordcount-output)
      <-- KTABLE-TOSTREAM-0000000008

`,
  },
  {
    name: 'grouped',
    build: (b) => b.stream<string, string>('orders').groupBy((_k, v) => v, { name: 'by-customer' }).count().toStream().to('counts'),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [orders])
      --> by-customer
    Processor: by-customer (stores: [])
      --> by-customer-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: by-customer-repartition-filter (stores: [])
      --> by-customer-repartition-sink
      <-- by-customer
    Sink: by-customer-repartition-sink (topic: by-customer-repartition)
      <-- by-customer-repartition-filter

  Sub-topology: 1
    Source: by-customer-repartition-source (topics: [by-customer-repartition])
      --> KSTREAM-AGGREGATE-0000000003
    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000002])
      --> KTABLE-TOSTREAM-0000000007
      <-- by-customer-repartition-source
    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- KSTREAM-AGGREGATE-0000000003
    Sink: KSTREAM-SINK-0000000008 (topic: counts)
      <-- KTABLE-TOSTREAM-0000000007

`,
  },
  {
    name: 'chained',
    build: (b) => b.stream<string, string>('events').groupByKey().reduce((_a, c) => c).toStream().groupBy((_k, v) => v).count().toStream().to('value-counts'),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [events])
      --> KSTREAM-REDUCE-0000000002
    Processor: KSTREAM-REDUCE-0000000002 (stores: [KSTREAM-REDUCE-STATE-STORE-0000000001])
      --> KTABLE-TOSTREAM-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-TOSTREAM-0000000003 (stores: [])
      --> KSTREAM-KEY-SELECT-0000000004
      <-- KSTREAM-REDUCE-0000000002
    Processor: KSTREAM-KEY-SELECT-0000000004 (stores: [])
      --> KSTREAM-FILTER-0000000008
      <-- KTABLE-TOSTREAM-0000000003
    Processor: KSTREAM-FILTER-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-KEY-SELECT-0000000004
    Sink: KSTREAM-SINK-0000000007 (topic: KSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition)
      <-- KSTREAM-FILTER-0000000008

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000009 (topics: [KSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition])
      --> KSTREAM-AGGREGATE-0000000006
    Processor: KSTREAM-AGGREGATE-0000000006 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000005])
      --> KTABLE-TOSTREAM-0000000010
      <-- KSTREAM-SOURCE-0000000009
    Processor: KTABLE-TOSTREAM-0000000010 (stores: [])
      --> KSTREAM-SINK-0000000011
      <-- KSTREAM-AGGREGATE-0000000006
    Sink: KSTREAM-SINK-0000000011 (topic: value-counts)
      <-- KTABLE-TOSTREAM-0000000010

`,
  },
  {
    name: 'table-group-by',
    build: (b) => b.table<string, string>('users').groupBy((k, v) => ({ key: v, value: k })).aggregate(() => 0, (_k, _v, agg) => agg + 1, (_k, _v, agg) => agg - 1).toStream().to('users-per-city'),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [users])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [users-STATE-STORE-0000000000])
      --> KTABLE-SELECT-0000000003
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-SELECT-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KTABLE-SOURCE-0000000002
    Sink: KSTREAM-SINK-0000000005 (topic: KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition)
      <-- KTABLE-SELECT-0000000003

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000006 (topics: [KTABLE-AGGREGATE-STATE-STORE-0000000004-repartition])
      --> KTABLE-AGGREGATE-0000000007
    Processor: KTABLE-AGGREGATE-0000000007 (stores: [KTABLE-AGGREGATE-STATE-STORE-0000000004])
      --> KTABLE-TOSTREAM-0000000008
      <-- KSTREAM-SOURCE-0000000006
    Processor: KTABLE-TOSTREAM-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000009
      <-- KTABLE-AGGREGATE-0000000007
    Sink: KSTREAM-SINK-0000000009 (topic: users-per-city)
      <-- KTABLE-TOSTREAM-0000000008

`,
  },
  {
    name: 'windowed',
    build: (b) => b.stream<string, string>('clicks').groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(60_000)).count().toStream().to('clicks-per-minute'),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [clicks])
      --> KSTREAM-AGGREGATE-0000000002
    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000001])
      --> KTABLE-TOSTREAM-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-TOSTREAM-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-AGGREGATE-0000000002
    Sink: KSTREAM-SINK-0000000004 (topic: clicks-per-minute)
      <-- KTABLE-TOSTREAM-0000000003

`,
  },
  {
    name: 'stream-table-join',
    build: (b) => {
      const profiles = b.table<string, string>('profiles');
      b.stream<string, string>('views').selectKey((_k, v) => v).join(profiles, (v, u) => v + u).to('enriched');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000007 (topics: [KSTREAM-KEY-SELECT-0000000004-repartition])
      --> KSTREAM-JOIN-0000000008
    Processor: KSTREAM-JOIN-0000000008 (stores: [profiles-STATE-STORE-0000000000])
      --> KSTREAM-SINK-0000000009
      <-- KSTREAM-SOURCE-0000000007
    Source: KSTREAM-SOURCE-0000000001 (topics: [profiles])
      --> KTABLE-SOURCE-0000000002
    Sink: KSTREAM-SINK-0000000009 (topic: enriched)
      <-- KSTREAM-JOIN-0000000008
    Processor: KTABLE-SOURCE-0000000002 (stores: [profiles-STATE-STORE-0000000000])
      --> none
      <-- KSTREAM-SOURCE-0000000001

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000003 (topics: [views])
      --> KSTREAM-KEY-SELECT-0000000004
    Processor: KSTREAM-KEY-SELECT-0000000004 (stores: [])
      --> KSTREAM-FILTER-0000000006
      <-- KSTREAM-SOURCE-0000000003
    Processor: KSTREAM-FILTER-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-KEY-SELECT-0000000004
    Sink: KSTREAM-SINK-0000000005 (topic: KSTREAM-KEY-SELECT-0000000004-repartition)
      <-- KSTREAM-FILTER-0000000006

`,
  },
  {
    name: 'named',
    build: (b) => b.stream<string, string>('a', { name: 'src' }).filter((_k, v) => v !== null, { name: 'keep' }).groupBy((_k, v) => v, { name: 'by-value' }).count({ storeName: 'counts' }, { name: 'counter' }).toStream({ name: 'out' }).to('b', { name: 'sink' }),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: src (topics: [a])
      --> keep
    Processor: keep (stores: [])
      --> by-value
      <-- src
    Processor: by-value (stores: [])
      --> by-value-repartition-filter
      <-- keep
    Processor: by-value-repartition-filter (stores: [])
      --> by-value-repartition-sink
      <-- by-value
    Sink: by-value-repartition-sink (topic: by-value-repartition)
      <-- by-value-repartition-filter

  Sub-topology: 1
    Source: by-value-repartition-source (topics: [by-value-repartition])
      --> counter
    Processor: counter (stores: [counts])
      --> out
      <-- by-value-repartition-source
    Processor: out (stores: [])
      --> sink
      <-- counter
    Sink: sink (topic: b)
      <-- out

`,
  },
  {
    name: 'named-table',
    build: (b) => b.table<string, string>('t', { name: 'table-src' }, { storeName: 't-store' }).groupBy((k, v) => ({ key: v, value: k }), { name: 'regroup' }).count(undefined, { name: 'tcount' }).toStream().to('tc'),
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: table-src-source (topics: [t])
      --> table-src
    Processor: table-src (stores: [t-store])
      --> regroup
      <-- table-src-source
    Processor: regroup (stores: [])
      --> tcount-sink
      <-- table-src
    Sink: tcount-sink (topic: regroup-repartition)
      <-- regroup

  Sub-topology: 1
    Source: tcount-source (topics: [regroup-repartition])
      --> tcount
    Processor: tcount (stores: [KTABLE-AGGREGATE-STATE-STORE-0000000003])
      --> KTABLE-TOSTREAM-0000000007
      <-- tcount-source
    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- tcount
    Sink: KSTREAM-SINK-0000000008 (topic: tc)
      <-- KTABLE-TOSTREAM-0000000007

`,
  },
  {
    name: 'stateless',
    build: (b) => {
      const input = b.stream<string, string>('in');
      input
        .filter(() => true)
        .filterNot(() => false)
        .map((key, value) => ({ key, value }))
        .mapValues((v) => v)
        .flatMap((key, value) => [{ key, value }])
        .flatMapValues((v) => [v])
        .selectKey((_k, v) => v)
        .peek(() => undefined)
        .to('out');
      input.foreach(() => undefined);
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-FILTER-0000000001, KSTREAM-FOREACH-0000000010
    Processor: KSTREAM-FILTER-0000000001 (stores: [])
      --> KSTREAM-FILTER-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-FILTER-0000000002 (stores: [])
      --> KSTREAM-MAP-0000000003
      <-- KSTREAM-FILTER-0000000001
    Processor: KSTREAM-MAP-0000000003 (stores: [])
      --> KSTREAM-MAPVALUES-0000000004
      <-- KSTREAM-FILTER-0000000002
    Processor: KSTREAM-MAPVALUES-0000000004 (stores: [])
      --> KSTREAM-FLATMAP-0000000005
      <-- KSTREAM-MAP-0000000003
    Processor: KSTREAM-FLATMAP-0000000005 (stores: [])
      --> KSTREAM-FLATMAPVALUES-0000000006
      <-- KSTREAM-MAPVALUES-0000000004
    Processor: KSTREAM-FLATMAPVALUES-0000000006 (stores: [])
      --> KSTREAM-KEY-SELECT-0000000007
      <-- KSTREAM-FLATMAP-0000000005
    Processor: KSTREAM-KEY-SELECT-0000000007 (stores: [])
      --> KSTREAM-PEEK-0000000008
      <-- KSTREAM-FLATMAPVALUES-0000000006
    Processor: KSTREAM-PEEK-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000009
      <-- KSTREAM-KEY-SELECT-0000000007
    Processor: KSTREAM-FOREACH-0000000010 (stores: [])
      --> none
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000009 (topic: out)
      <-- KSTREAM-PEEK-0000000008

`,
  },
  {
    name: 'split-merge',
    build: (b) => {
      const input = b.stream<string, string>('in');
      const named = input.split({ name: 's-' }).branch((_k, v) => v.startsWith('a'), { name: 'a' }).branch((_k, v) => v.startsWith('b')).defaultBranch();
      named.get('s-a')!.merge(named.get('s-2')!).merge(named.get('s-0')!, { name: 'm' }).to('out');
      input
        .split()
        .branch(() => true, { chain: (s) => s.to('one') })
        .defaultBranch({ chain: (s) => s.to('zero') });
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> s-, KSTREAM-BRANCH-0000000008
    Processor: s- (stores: [])
      --> s-0, s-2, s-a
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-BRANCH-0000000008 (stores: [])
      --> KSTREAM-BRANCH-00000000080, KSTREAM-BRANCH-00000000081
      <-- KSTREAM-SOURCE-0000000000
    Processor: s-2 (stores: [])
      --> KSTREAM-MERGE-0000000005
      <-- s-
    Processor: s-a (stores: [])
      --> KSTREAM-MERGE-0000000005
      <-- s-
    Processor: KSTREAM-MERGE-0000000005 (stores: [])
      --> m
      <-- s-a, s-2
    Processor: s-0 (stores: [])
      --> m
      <-- s-
    Processor: KSTREAM-BRANCH-00000000080 (stores: [])
      --> KSTREAM-SINK-0000000012
      <-- KSTREAM-BRANCH-0000000008
    Processor: KSTREAM-BRANCH-00000000081 (stores: [])
      --> KSTREAM-SINK-0000000010
      <-- KSTREAM-BRANCH-0000000008
    Processor: m (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-MERGE-0000000005, s-0
    Sink: KSTREAM-SINK-0000000007 (topic: out)
      <-- m
    Sink: KSTREAM-SINK-0000000010 (topic: one)
      <-- KSTREAM-BRANCH-00000000081
    Sink: KSTREAM-SINK-0000000012 (topic: zero)
      <-- KSTREAM-BRANCH-00000000080

`,
  },
  {
    name: 'repartition',
    build: (b) => {
      const input = b.stream<string, string>('in');
      input.repartition().to('o1');
      input.repartition({ name: 'r' }).to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-FILTER-0000000003, r-repartition-filter
    Processor: KSTREAM-FILTER-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Processor: r-repartition-filter (stores: [])
      --> r-repartition-sink
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000002 (topic: KSTREAM-REPARTITION-0000000001-repartition)
      <-- KSTREAM-FILTER-0000000003
    Sink: r-repartition-sink (topic: r-repartition)
      <-- r-repartition-filter

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000004 (topics: [KSTREAM-REPARTITION-0000000001-repartition])
      --> KSTREAM-SINK-0000000005
    Sink: KSTREAM-SINK-0000000005 (topic: o1)
      <-- KSTREAM-SOURCE-0000000004

  Sub-topology: 2
    Source: r-repartition-source (topics: [r-repartition])
      --> KSTREAM-SINK-0000000009
    Sink: KSTREAM-SINK-0000000009 (topic: o2)
      <-- r-repartition-source

`,
  },
  {
    name: 'group-by-key',
    build: (b) => {
      const input = b.stream<string, string>('in');
      input.selectKey((_k, v) => v).groupByKey().reduce((_a, c) => c).toStream().to('o1');
      input.map((key, value) => ({ key, value })).groupByKey({ name: 'g' }).count({ storeName: 'c' }).toStream().to('o2');
      input.groupByKey().aggregate(() => '', (_k, v, a) => a + v, { storeName: 'agg-store' }, { name: 'agg' }).toStream().to('o3');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-KEY-SELECT-0000000001, KSTREAM-MAP-0000000009, agg
    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])
      --> KSTREAM-FILTER-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-MAP-0000000009 (stores: [])
      --> g-repartition-filter
      <-- KSTREAM-SOURCE-0000000000
    Processor: agg (stores: [agg-store])
      --> KTABLE-TOSTREAM-0000000017
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-FILTER-0000000005 (stores: [])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-KEY-SELECT-0000000001
    Processor: KTABLE-TOSTREAM-0000000017 (stores: [])
      --> KSTREAM-SINK-0000000018
      <-- agg
    Processor: g-repartition-filter (stores: [])
      --> g-repartition-sink
      <-- KSTREAM-MAP-0000000009
    Sink: KSTREAM-SINK-0000000004 (topic: KSTREAM-REDUCE-STATE-STORE-0000000002-repartition)
      <-- KSTREAM-FILTER-0000000005
    Sink: KSTREAM-SINK-0000000018 (topic: o3)
      <-- KTABLE-TOSTREAM-0000000017
    Sink: g-repartition-sink (topic: g-repartition)
      <-- g-repartition-filter

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000006 (topics: [KSTREAM-REDUCE-STATE-STORE-0000000002-repartition])
      --> KSTREAM-REDUCE-0000000003
    Processor: KSTREAM-REDUCE-0000000003 (stores: [KSTREAM-REDUCE-STATE-STORE-0000000002])
      --> KTABLE-TOSTREAM-0000000007
      <-- KSTREAM-SOURCE-0000000006
    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- KSTREAM-REDUCE-0000000003
    Sink: KSTREAM-SINK-0000000008 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000007

  Sub-topology: 2
    Source: g-repartition-source (topics: [g-repartition])
      --> KSTREAM-AGGREGATE-0000000010
    Processor: KSTREAM-AGGREGATE-0000000010 (stores: [c])
      --> KTABLE-TOSTREAM-0000000014
      <-- g-repartition-source
    Processor: KTABLE-TOSTREAM-0000000014 (stores: [])
      --> KSTREAM-SINK-0000000015
      <-- KSTREAM-AGGREGATE-0000000010
    Sink: KSTREAM-SINK-0000000015 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000014

`,
  },
  {
    name: 'to-table',
    build: (b) => {
      const input = b.stream<string, string>('in');
      input.toTable().toStream().to('o1');
      input.toTable({ name: 'tt' }, { storeName: 'tt-store' }).toStream().to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-TOTABLE-0000000001, tt
    Processor: KSTREAM-TOTABLE-0000000001 (stores: [])
      --> KTABLE-TOSTREAM-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: tt (stores: [tt-store])
      --> KTABLE-TOSTREAM-0000000006
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-TOSTREAM-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-TOTABLE-0000000001
    Processor: KTABLE-TOSTREAM-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- tt
    Sink: KSTREAM-SINK-0000000004 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000003
    Sink: KSTREAM-SINK-0000000007 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000006

`,
  },
  {
    name: 'table-ops',
    build: (b) => {
      b.table<string, string>('t').filter(() => true).mapValues((v) => v).toStream().to('o1');
      b.table<string, string>('t2', {}, { storeName: 't2-store' })
        .filterNot(() => false, undefined, { storeName: 'f-store' })
        .mapValues((v) => v + '!', undefined, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .toStream()
        .to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [t])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [])
      --> KTABLE-FILTER-0000000003
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-FILTER-0000000003 (stores: [])
      --> KTABLE-MAPVALUES-0000000004
      <-- KTABLE-SOURCE-0000000002
    Processor: KTABLE-MAPVALUES-0000000004 (stores: [])
      --> KTABLE-TOSTREAM-0000000005
      <-- KTABLE-FILTER-0000000003
    Processor: KTABLE-TOSTREAM-0000000005 (stores: [])
      --> KSTREAM-SINK-0000000006
      <-- KTABLE-MAPVALUES-0000000004
    Sink: KSTREAM-SINK-0000000006 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000005

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000007 (topics: [t2])
      --> KTABLE-SOURCE-0000000008
    Processor: KTABLE-SOURCE-0000000008 (stores: [t2-store])
      --> KTABLE-FILTER-0000000009
      <-- KSTREAM-SOURCE-0000000007
    Processor: KTABLE-FILTER-0000000009 (stores: [f-store])
      --> KTABLE-MAPVALUES-0000000011
      <-- KTABLE-SOURCE-0000000008
    Processor: KTABLE-MAPVALUES-0000000011 (stores: [])
      --> KTABLE-TOSTREAM-0000000012
      <-- KTABLE-FILTER-0000000009
    Processor: KTABLE-TOSTREAM-0000000012 (stores: [])
      --> KSTREAM-SINK-0000000013
      <-- KTABLE-MAPVALUES-0000000011
    Sink: KSTREAM-SINK-0000000013 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000012

`,
  },
  {
    name: 'stream-stream-joins',
    build: (b) => {
      const fiveSeconds = JoinWindows.ofTimeDifferenceWithNoGrace(5000);
      // Java's StreamJoined.as(x) names the join stores, not the processors: Sluice's { storeName: x }.
      const left = b.stream<string, string>('left');
      const right = b.stream<string, string>('right');
      left.join(right, (a, c) => a + c, fiveSeconds).to('inner');
      left.leftJoin(right, (a, c) => a + c, fiveSeconds).to('left-out');
      left.outerJoin(right, (a, c) => `${a}${c}`, fiveSeconds, { storeName: 'oj' }).to('outer');
      left.join(right, (a, c) => a + c, fiveSeconds, { storeName: 'sj-store' }).to('stored');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [left])
      --> KSTREAM-WINDOWED-0000000014, KSTREAM-WINDOWED-0000000008, KSTREAM-WINDOWED-0000000020, KSTREAM-WINDOWED-0000000002
    Source: KSTREAM-SOURCE-0000000001 (topics: [right])
      --> KSTREAM-WINDOWED-0000000009, KSTREAM-WINDOWED-0000000015, KSTREAM-WINDOWED-0000000021, KSTREAM-WINDOWED-0000000003
    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])
      --> KSTREAM-JOINTHIS-0000000004
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-JOINOTHER-0000000005-store])
      --> KSTREAM-JOINOTHER-0000000005
      <-- KSTREAM-SOURCE-0000000001
    Processor: KSTREAM-WINDOWED-0000000008 (stores: [KSTREAM-JOINTHIS-0000000010-store])
      --> KSTREAM-JOINTHIS-0000000010
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-WINDOWED-0000000009 (stores: [KSTREAM-OUTEROTHER-0000000011-store])
      --> KSTREAM-OUTEROTHER-0000000011
      <-- KSTREAM-SOURCE-0000000001
    Processor: KSTREAM-WINDOWED-0000000014 (stores: [oj-outer-this-join-store])
      --> KSTREAM-OUTERTHIS-0000000016
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-WINDOWED-0000000015 (stores: [oj-outer-other-join-store])
      --> KSTREAM-OUTEROTHER-0000000017
      <-- KSTREAM-SOURCE-0000000001
    Processor: KSTREAM-WINDOWED-0000000020 (stores: [sj-store-this-join-store])
      --> KSTREAM-JOINTHIS-0000000022
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-WINDOWED-0000000021 (stores: [sj-store-other-join-store])
      --> KSTREAM-JOINOTHER-0000000023
      <-- KSTREAM-SOURCE-0000000001
    Processor: KSTREAM-JOINOTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store])
      --> KSTREAM-MERGE-0000000006
      <-- KSTREAM-WINDOWED-0000000003
    Processor: KSTREAM-JOINOTHER-0000000023 (stores: [sj-store-this-join-store])
      --> KSTREAM-MERGE-0000000024
      <-- KSTREAM-WINDOWED-0000000021
    Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-JOINOTHER-0000000005-store])
      --> KSTREAM-MERGE-0000000006
      <-- KSTREAM-WINDOWED-0000000002
    Processor: KSTREAM-JOINTHIS-0000000010 (stores: [KSTREAM-OUTERSHARED-0000000010-store, KSTREAM-OUTEROTHER-0000000011-store])
      --> KSTREAM-MERGE-0000000012
      <-- KSTREAM-WINDOWED-0000000008
    Processor: KSTREAM-JOINTHIS-0000000022 (stores: [sj-store-other-join-store])
      --> KSTREAM-MERGE-0000000024
      <-- KSTREAM-WINDOWED-0000000020
    Processor: KSTREAM-OUTEROTHER-0000000011 (stores: [KSTREAM-OUTERSHARED-0000000010-store, KSTREAM-JOINTHIS-0000000010-store])
      --> KSTREAM-MERGE-0000000012
      <-- KSTREAM-WINDOWED-0000000009
    Processor: KSTREAM-OUTEROTHER-0000000017 (stores: [oj-outer-shared-join-store, oj-outer-this-join-store])
      --> KSTREAM-MERGE-0000000018
      <-- KSTREAM-WINDOWED-0000000015
    Processor: KSTREAM-OUTERTHIS-0000000016 (stores: [oj-outer-shared-join-store, oj-outer-other-join-store])
      --> KSTREAM-MERGE-0000000018
      <-- KSTREAM-WINDOWED-0000000014
    Processor: KSTREAM-MERGE-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-JOINTHIS-0000000004, KSTREAM-JOINOTHER-0000000005
    Processor: KSTREAM-MERGE-0000000012 (stores: [])
      --> KSTREAM-SINK-0000000013
      <-- KSTREAM-JOINTHIS-0000000010, KSTREAM-OUTEROTHER-0000000011
    Processor: KSTREAM-MERGE-0000000018 (stores: [])
      --> KSTREAM-SINK-0000000019
      <-- KSTREAM-OUTERTHIS-0000000016, KSTREAM-OUTEROTHER-0000000017
    Processor: KSTREAM-MERGE-0000000024 (stores: [])
      --> KSTREAM-SINK-0000000025
      <-- KSTREAM-JOINTHIS-0000000022, KSTREAM-JOINOTHER-0000000023
    Sink: KSTREAM-SINK-0000000007 (topic: inner)
      <-- KSTREAM-MERGE-0000000006
    Sink: KSTREAM-SINK-0000000013 (topic: left-out)
      <-- KSTREAM-MERGE-0000000012
    Sink: KSTREAM-SINK-0000000019 (topic: outer)
      <-- KSTREAM-MERGE-0000000018
    Sink: KSTREAM-SINK-0000000025 (topic: stored)
      <-- KSTREAM-MERGE-0000000024

`,
  },
  {
    name: 'stream-stream-join-repartition',
    build: (b) => {
      const fiveSeconds = JoinWindows.ofTimeDifferenceWithNoGrace(5000);
      const left = b.stream<string, string>('left').selectKey((_k, v) => v);
      const right = b.stream<string, string>('right').selectKey((_k, v) => v);
      left.join(right, (a, c) => a + c, fiveSeconds).to('o1');
      left.leftJoin(right, (a, c) => a + c, fiveSeconds, { storeName: 'rj' }).to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [left])
      --> KSTREAM-KEY-SELECT-0000000001
    Processor: KSTREAM-KEY-SELECT-0000000001 (stores: [])
      --> KSTREAM-FILTER-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-FILTER-0000000005 (stores: [])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-KEY-SELECT-0000000001
    Sink: KSTREAM-SINK-0000000004 (topic: KSTREAM-KEY-SELECT-0000000001-repartition)
      <-- KSTREAM-FILTER-0000000005

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000002 (topics: [right])
      --> KSTREAM-KEY-SELECT-0000000003
    Processor: KSTREAM-KEY-SELECT-0000000003 (stores: [])
      --> KSTREAM-FILTER-0000000008
      <-- KSTREAM-SOURCE-0000000002
    Processor: KSTREAM-FILTER-0000000008 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-KEY-SELECT-0000000003
    Sink: KSTREAM-SINK-0000000007 (topic: KSTREAM-KEY-SELECT-0000000003-repartition)
      <-- KSTREAM-FILTER-0000000008

  Sub-topology: 2
    Source: KSTREAM-SOURCE-0000000006 (topics: [KSTREAM-KEY-SELECT-0000000001-repartition])
      --> KSTREAM-WINDOWED-0000000010, KSTREAM-WINDOWED-0000000022
    Source: KSTREAM-SOURCE-0000000009 (topics: [KSTREAM-KEY-SELECT-0000000003-repartition])
      --> KSTREAM-WINDOWED-0000000011, KSTREAM-WINDOWED-0000000023
    Processor: KSTREAM-WINDOWED-0000000010 (stores: [KSTREAM-JOINTHIS-0000000012-store])
      --> KSTREAM-JOINTHIS-0000000012
      <-- KSTREAM-SOURCE-0000000006
    Processor: KSTREAM-WINDOWED-0000000011 (stores: [KSTREAM-JOINOTHER-0000000013-store])
      --> KSTREAM-JOINOTHER-0000000013
      <-- KSTREAM-SOURCE-0000000009
    Processor: KSTREAM-WINDOWED-0000000022 (stores: [rj-this-join-store])
      --> KSTREAM-JOINTHIS-0000000024
      <-- KSTREAM-SOURCE-0000000006
    Processor: KSTREAM-WINDOWED-0000000023 (stores: [rj-outer-other-join-store])
      --> KSTREAM-OUTEROTHER-0000000025
      <-- KSTREAM-SOURCE-0000000009
    Processor: KSTREAM-JOINOTHER-0000000013 (stores: [KSTREAM-JOINTHIS-0000000012-store])
      --> KSTREAM-MERGE-0000000014
      <-- KSTREAM-WINDOWED-0000000011
    Processor: KSTREAM-JOINTHIS-0000000012 (stores: [KSTREAM-JOINOTHER-0000000013-store])
      --> KSTREAM-MERGE-0000000014
      <-- KSTREAM-WINDOWED-0000000010
    Processor: KSTREAM-JOINTHIS-0000000024 (stores: [rj-outer-other-join-store, rj-left-shared-join-store])
      --> KSTREAM-MERGE-0000000026
      <-- KSTREAM-WINDOWED-0000000022
    Processor: KSTREAM-OUTEROTHER-0000000025 (stores: [rj-left-shared-join-store, rj-this-join-store])
      --> KSTREAM-MERGE-0000000026
      <-- KSTREAM-WINDOWED-0000000023
    Processor: KSTREAM-MERGE-0000000014 (stores: [])
      --> KSTREAM-SINK-0000000015
      <-- KSTREAM-JOINTHIS-0000000012, KSTREAM-JOINOTHER-0000000013
    Processor: KSTREAM-MERGE-0000000026 (stores: [])
      --> KSTREAM-SINK-0000000027
      <-- KSTREAM-JOINTHIS-0000000024, KSTREAM-OUTEROTHER-0000000025
    Sink: KSTREAM-SINK-0000000015 (topic: o1)
      <-- KSTREAM-MERGE-0000000014
    Sink: KSTREAM-SINK-0000000027 (topic: o2)
      <-- KSTREAM-MERGE-0000000026

`,
  },
  {
    name: 'table-table-joins',
    build: (b) => {
      const t1 = b.table<string, string>('t1');
      const t2 = b.table<string, string>('t2');
      t1.join(t2, (a, c) => a + c).toStream().to('inner');
      t1.leftJoin(t2, (a, c) => a + c, undefined, { storeName: 'lj' }).toStream().to('left-out');
      t1.outerJoin(t2, (a, c) => `${a}${c}`, { name: 'oj' }).toStream().to('outer');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [t1])
      --> KTABLE-SOURCE-0000000002
    Source: KSTREAM-SOURCE-0000000004 (topics: [t2])
      --> KTABLE-SOURCE-0000000005
    Processor: KTABLE-SOURCE-0000000002 (stores: [t1-STATE-STORE-0000000000])
      --> KTABLE-JOINTHIS-0000000012, KTABLE-JOINTHIS-0000000007, oj-join-this
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-SOURCE-0000000005 (stores: [t2-STATE-STORE-0000000003])
      --> KTABLE-JOINOTHER-0000000013, KTABLE-JOINOTHER-0000000008, oj-join-other
      <-- KSTREAM-SOURCE-0000000004
    Processor: KTABLE-JOINOTHER-0000000008 (stores: [t1-STATE-STORE-0000000000])
      --> KTABLE-MERGE-0000000006
      <-- KTABLE-SOURCE-0000000005
    Processor: KTABLE-JOINOTHER-0000000013 (stores: [t1-STATE-STORE-0000000000])
      --> KTABLE-MERGE-0000000011
      <-- KTABLE-SOURCE-0000000005
    Processor: KTABLE-JOINTHIS-0000000007 (stores: [t2-STATE-STORE-0000000003])
      --> KTABLE-MERGE-0000000006
      <-- KTABLE-SOURCE-0000000002
    Processor: KTABLE-JOINTHIS-0000000012 (stores: [t2-STATE-STORE-0000000003])
      --> KTABLE-MERGE-0000000011
      <-- KTABLE-SOURCE-0000000002
    Processor: oj-join-other (stores: [t1-STATE-STORE-0000000000])
      --> oj
      <-- KTABLE-SOURCE-0000000005
    Processor: oj-join-this (stores: [t2-STATE-STORE-0000000003])
      --> oj
      <-- KTABLE-SOURCE-0000000002
    Processor: KTABLE-MERGE-0000000006 (stores: [])
      --> KTABLE-TOSTREAM-0000000009
      <-- KTABLE-JOINTHIS-0000000007, KTABLE-JOINOTHER-0000000008
    Processor: KTABLE-MERGE-0000000011 (stores: [lj])
      --> KTABLE-TOSTREAM-0000000014
      <-- KTABLE-JOINTHIS-0000000012, KTABLE-JOINOTHER-0000000013
    Processor: oj (stores: [])
      --> KTABLE-TOSTREAM-0000000019
      <-- oj-join-this, oj-join-other
    Processor: KTABLE-TOSTREAM-0000000009 (stores: [])
      --> KSTREAM-SINK-0000000010
      <-- KTABLE-MERGE-0000000006
    Processor: KTABLE-TOSTREAM-0000000014 (stores: [])
      --> KSTREAM-SINK-0000000015
      <-- KTABLE-MERGE-0000000011
    Processor: KTABLE-TOSTREAM-0000000019 (stores: [])
      --> KSTREAM-SINK-0000000020
      <-- oj
    Sink: KSTREAM-SINK-0000000010 (topic: inner)
      <-- KTABLE-TOSTREAM-0000000009
    Sink: KSTREAM-SINK-0000000015 (topic: left-out)
      <-- KTABLE-TOSTREAM-0000000014
    Sink: KSTREAM-SINK-0000000020 (topic: outer)
      <-- KTABLE-TOSTREAM-0000000019

`,
  },
  {
    name: 'stream-table-joins',
    build: (b) => {
      const lookup = b.table<string, string>('lookup');
      const facts = b.stream<string, string>('facts');
      facts.leftJoin(lookup, (a, c) => a + c).to('o1');
      facts.selectKey((_k, v) => v).leftJoin(lookup, (a, c) => a + c, { name: 'lj' }).to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000003 (topics: [facts])
      --> KSTREAM-LEFTJOIN-0000000004, KSTREAM-KEY-SELECT-0000000006
    Processor: KSTREAM-KEY-SELECT-0000000006 (stores: [])
      --> lj-repartition-filter
      <-- KSTREAM-SOURCE-0000000003
    Source: lj-repartition-source (topics: [lj-repartition])
      --> lj
    Processor: KSTREAM-LEFTJOIN-0000000004 (stores: [lookup-STATE-STORE-0000000000])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-SOURCE-0000000003
    Source: KSTREAM-SOURCE-0000000001 (topics: [lookup])
      --> KTABLE-SOURCE-0000000002
    Processor: lj (stores: [lookup-STATE-STORE-0000000000])
      --> KSTREAM-SINK-0000000011
      <-- lj-repartition-source
    Processor: lj-repartition-filter (stores: [])
      --> lj-repartition-sink
      <-- KSTREAM-KEY-SELECT-0000000006
    Sink: KSTREAM-SINK-0000000005 (topic: o1)
      <-- KSTREAM-LEFTJOIN-0000000004
    Sink: KSTREAM-SINK-0000000011 (topic: o2)
      <-- lj
    Processor: KTABLE-SOURCE-0000000002 (stores: [lookup-STATE-STORE-0000000000])
      --> none
      <-- KSTREAM-SOURCE-0000000001
    Sink: lj-repartition-sink (topic: lj-repartition)
      <-- lj-repartition-filter

`,
  },
  {
    name: 'windowed-aggregations',
    build: (b) => {
      const byKey = b.stream<string, string>('in').groupByKey();
      byKey.windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000)).reduce((_a, c) => c, { storeName: 'w-reduce' }).toStream().to('o1');
      byKey.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(60_000)).count().toStream().to('o2');
      byKey.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(60_000)).count().toStream().to('o3');
      byKey
        .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(60_000))
        .aggregate(() => '', (_k, v, a) => a + v, (_k, a, c) => a + c, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, { name: 'sessions' })
        .toStream()
        .to('o4');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-AGGREGATE-0000000005, KSTREAM-AGGREGATE-0000000009, KSTREAM-REDUCE-0000000001, sessions
    Processor: KSTREAM-AGGREGATE-0000000005 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000004])
      --> KTABLE-TOSTREAM-0000000006
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-AGGREGATE-0000000009 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000008])
      --> KTABLE-TOSTREAM-0000000010
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-REDUCE-0000000001 (stores: [w-reduce])
      --> KTABLE-TOSTREAM-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Processor: sessions (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000012])
      --> KTABLE-TOSTREAM-0000000014
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-TOSTREAM-0000000002 (stores: [])
      --> KSTREAM-SINK-0000000003
      <-- KSTREAM-REDUCE-0000000001
    Processor: KTABLE-TOSTREAM-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-AGGREGATE-0000000005
    Processor: KTABLE-TOSTREAM-0000000010 (stores: [])
      --> KSTREAM-SINK-0000000011
      <-- KSTREAM-AGGREGATE-0000000009
    Processor: KTABLE-TOSTREAM-0000000014 (stores: [])
      --> KSTREAM-SINK-0000000015
      <-- sessions
    Sink: KSTREAM-SINK-0000000003 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000002
    Sink: KSTREAM-SINK-0000000007 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000006
    Sink: KSTREAM-SINK-0000000011 (topic: o3)
      <-- KTABLE-TOSTREAM-0000000010
    Sink: KSTREAM-SINK-0000000015 (topic: o4)
      <-- KTABLE-TOSTREAM-0000000014

`,
  },
  {
    name: 'suppress',
    build: (b) => {
      b.stream<string, string>('in').groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(60_000)).count()
        .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())).toStream().to('o1');
      b.table<string, string>('t').suppress(Suppressed.untilTimeLimit(1000, BufferConfig.maxRecords(10), 'sup')).toStream().to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-AGGREGATE-0000000002
    Processor: KSTREAM-AGGREGATE-0000000002 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000001])
      --> KTABLE-SUPPRESS-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-SUPPRESS-0000000003 (stores: [KTABLE-SUPPRESS-STATE-STORE-0000000004])
      --> KTABLE-TOSTREAM-0000000005
      <-- KSTREAM-AGGREGATE-0000000002
    Processor: KTABLE-TOSTREAM-0000000005 (stores: [])
      --> KSTREAM-SINK-0000000006
      <-- KTABLE-SUPPRESS-0000000003
    Sink: KSTREAM-SINK-0000000006 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000005

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000008 (topics: [t])
      --> KTABLE-SOURCE-0000000009
    Processor: KTABLE-SOURCE-0000000009 (stores: [t-STATE-STORE-0000000007])
      --> sup
      <-- KSTREAM-SOURCE-0000000008
    Processor: sup (stores: [sup-store])
      --> KTABLE-TOSTREAM-0000000010
      <-- KTABLE-SOURCE-0000000009
    Processor: KTABLE-TOSTREAM-0000000010 (stores: [])
      --> KSTREAM-SINK-0000000011
      <-- sup
    Sink: KSTREAM-SINK-0000000011 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000010

`,
  },
  {
    name: 'table-aggregations',
    build: (b) => {
      const regrouped = b.table<string, string>('t').groupBy((key, value) => ({ key, value }));
      regrouped.reduce((_a, c) => c, (a) => a, { storeName: 'r' }).toStream().to('o1');
      regrouped.count().toStream().to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [t])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [t-STATE-STORE-0000000000])
      --> KTABLE-SELECT-0000000003
      <-- KSTREAM-SOURCE-0000000001
    Processor: KTABLE-SELECT-0000000003 (stores: [])
      --> KSTREAM-SINK-0000000004, KSTREAM-SINK-0000000010
      <-- KTABLE-SOURCE-0000000002
    Sink: KSTREAM-SINK-0000000004 (topic: r-repartition)
      <-- KTABLE-SELECT-0000000003
    Sink: KSTREAM-SINK-0000000010 (topic: KTABLE-AGGREGATE-STATE-STORE-0000000009-repartition)
      <-- KTABLE-SELECT-0000000003

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000005 (topics: [r-repartition])
      --> KTABLE-REDUCE-0000000006
    Processor: KTABLE-REDUCE-0000000006 (stores: [r])
      --> KTABLE-TOSTREAM-0000000007
      <-- KSTREAM-SOURCE-0000000005
    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- KTABLE-REDUCE-0000000006
    Sink: KSTREAM-SINK-0000000008 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000007

  Sub-topology: 2
    Source: KSTREAM-SOURCE-0000000011 (topics: [KTABLE-AGGREGATE-STATE-STORE-0000000009-repartition])
      --> KTABLE-AGGREGATE-0000000012
    Processor: KTABLE-AGGREGATE-0000000012 (stores: [KTABLE-AGGREGATE-STATE-STORE-0000000009])
      --> KTABLE-TOSTREAM-0000000013
      <-- KSTREAM-SOURCE-0000000011
    Processor: KTABLE-TOSTREAM-0000000013 (stores: [])
      --> KSTREAM-SINK-0000000014
      <-- KTABLE-AGGREGATE-0000000012
    Sink: KSTREAM-SINK-0000000014 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000013

`,
  },
  {
    name: 'process',
    build: (b) => {
      b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('my-store'), Serdes.String(), Serdes.String()) as unknown as StoreBuilder<StateStore>);
      const raw = b.stream<string, string>('in');
      raw.process(forward, { stores: ['my-store'] }).to('o1');
      raw.process(forward, { name: 'p' }).to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-PROCESSOR-0000000001, p
    Processor: KSTREAM-PROCESSOR-0000000001 (stores: [my-store])
      --> KSTREAM-SINK-0000000002
      <-- KSTREAM-SOURCE-0000000000
    Processor: p (stores: [])
      --> KSTREAM-SINK-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000002 (topic: o1)
      <-- KSTREAM-PROCESSOR-0000000001
    Sink: KSTREAM-SINK-0000000003 (topic: o2)
      <-- p

`,
  },
  {
    name: 'process-values',
    build: (b) => {
      b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('pv-store'), Serdes.String(), Serdes.String()) as unknown as StoreBuilder<StateStore>);
      const raw = b.stream<string, string>('in');
      raw.processValues(forwardValues, { stores: ['pv-store'] }).groupByKey().count().toStream().to('o1');
      raw.processValues(forwardValues, { name: 'pv' }).to('o2');
      raw.process(forward).groupByKey().count().toStream().to('o3');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-PROCESSVALUES-0000000001, pv, KSTREAM-PROCESSOR-0000000007
    Processor: KSTREAM-PROCESSVALUES-0000000001 (stores: [pv-store])
      --> KSTREAM-AGGREGATE-0000000003
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-AGGREGATE-0000000003 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000002])
      --> KTABLE-TOSTREAM-0000000004
      <-- KSTREAM-PROCESSVALUES-0000000001
    Processor: KSTREAM-PROCESSOR-0000000007 (stores: [])
      --> KSTREAM-FILTER-0000000011
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-FILTER-0000000011 (stores: [])
      --> KSTREAM-SINK-0000000010
      <-- KSTREAM-PROCESSOR-0000000007
    Processor: KTABLE-TOSTREAM-0000000004 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-AGGREGATE-0000000003
    Processor: pv (stores: [])
      --> KSTREAM-SINK-0000000006
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000005 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000004
    Sink: KSTREAM-SINK-0000000006 (topic: o2)
      <-- pv
    Sink: KSTREAM-SINK-0000000010 (topic: KSTREAM-AGGREGATE-STATE-STORE-0000000008-repartition)
      <-- KSTREAM-FILTER-0000000011

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000012 (topics: [KSTREAM-AGGREGATE-STATE-STORE-0000000008-repartition])
      --> KSTREAM-AGGREGATE-0000000009
    Processor: KSTREAM-AGGREGATE-0000000009 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000008])
      --> KTABLE-TOSTREAM-0000000013
      <-- KSTREAM-SOURCE-0000000012
    Processor: KTABLE-TOSTREAM-0000000013 (stores: [])
      --> KSTREAM-SINK-0000000014
      <-- KSTREAM-AGGREGATE-0000000009
    Sink: KSTREAM-SINK-0000000014 (topic: o3)
      <-- KTABLE-TOSTREAM-0000000013

`,
  },
  {
    name: 'cogroup',
    build: (b) => {
      const g1 = b.stream<string, string>('a').groupByKey();
      const g2 = b.stream<string, string>('b').groupBy((_k, v) => v);
      const g3 = b.stream<string, string>('c').groupBy((_k, v) => v, { name: 'c-by-value' });
      g1.cogroup((_k, v, a: string) => a + v).cogroup(g2, (_k, v, a) => a + v).aggregate(() => '').toStream().to('o1');
      g1.cogroup((_k, v, a: string) => a + v).cogroup(g3, (_k, v, a) => a + v)
        .aggregate(() => '', { storeName: 'cg-store' }, { name: 'named' }).toStream().to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [a])
      --> named-cogroup-agg-0, COGROUPKSTREAM-AGGREGATE-0000000009
    Source: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-source (topics: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition])
      --> COGROUPKSTREAM-AGGREGATE-0000000010
    Source: c-by-value-repartition-source (topics: [c-by-value-repartition])
      --> named-cogroup-agg-1
    Processor: COGROUPKSTREAM-AGGREGATE-0000000009 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005])
      --> COGROUPKSTREAM-MERGE-0000000011
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-0000000010 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005])
      --> COGROUPKSTREAM-MERGE-0000000011
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-source
    Processor: named-cogroup-agg-0 (stores: [cg-store])
      --> named-cogroup-merge
      <-- KSTREAM-SOURCE-0000000000
    Processor: named-cogroup-agg-1 (stores: [cg-store])
      --> named-cogroup-merge
      <-- c-by-value-repartition-source
    Processor: COGROUPKSTREAM-MERGE-0000000011 (stores: [])
      --> KTABLE-TOSTREAM-0000000012
      <-- COGROUPKSTREAM-AGGREGATE-0000000009, COGROUPKSTREAM-AGGREGATE-0000000010
    Processor: named-cogroup-merge (stores: [])
      --> KTABLE-TOSTREAM-0000000020
      <-- named-cogroup-agg-0, named-cogroup-agg-1
    Processor: KTABLE-TOSTREAM-0000000012 (stores: [])
      --> KSTREAM-SINK-0000000013
      <-- COGROUPKSTREAM-MERGE-0000000011
    Processor: KTABLE-TOSTREAM-0000000020 (stores: [])
      --> KSTREAM-SINK-0000000021
      <-- named-cogroup-merge
    Sink: KSTREAM-SINK-0000000013 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000012
    Sink: KSTREAM-SINK-0000000021 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000020

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000001 (topics: [b])
      --> KSTREAM-KEY-SELECT-0000000002
    Processor: KSTREAM-KEY-SELECT-0000000002 (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-filter
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-filter (stores: [])
      --> COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-sink
      <-- KSTREAM-KEY-SELECT-0000000002
    Sink: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-sink (topic: COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition)
      <-- COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000005-repartition-filter

  Sub-topology: 2
    Source: KSTREAM-SOURCE-0000000003 (topics: [c])
      --> c-by-value
    Processor: c-by-value (stores: [])
      --> c-by-value-repartition-filter
      <-- KSTREAM-SOURCE-0000000003
    Processor: c-by-value-repartition-filter (stores: [])
      --> c-by-value-repartition-sink
      <-- c-by-value
    Sink: c-by-value-repartition-sink (topic: c-by-value-repartition)
      <-- c-by-value-repartition-filter

`,
  },
  {
    name: 'cogroup-windows',
    build: (b) => {
      const w1 = b.stream<string, string>('a').groupByKey();
      const w2 = b.stream<string, string>('b').groupByKey();
      const cg = w1.cogroup((_k, v, a: string) => a + v).cogroup(w2, (_k, v, a) => a + v);
      cg.windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000)).aggregate(() => '').toStream().to('o1');
      cg.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(60_000)).aggregate(() => '').toStream().to('o2');
      cg.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(60_000)).aggregate(() => '', (_k, a, c) => a + c, {}, { name: 'sessions' }).toStream().to('o3');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [a])
      --> COGROUPKSTREAM-AGGREGATE-0000000003, COGROUPKSTREAM-AGGREGATE-0000000009, sessions-cogroup-agg-0
    Source: KSTREAM-SOURCE-0000000001 (topics: [b])
      --> COGROUPKSTREAM-AGGREGATE-0000000004, COGROUPKSTREAM-AGGREGATE-0000000010, sessions-cogroup-agg-1
    Processor: COGROUPKSTREAM-AGGREGATE-0000000003 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000002])
      --> COGROUPKSTREAM-MERGE-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-0000000004 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000002])
      --> COGROUPKSTREAM-MERGE-0000000005
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-AGGREGATE-0000000009 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000008])
      --> COGROUPKSTREAM-MERGE-0000000011
      <-- KSTREAM-SOURCE-0000000000
    Processor: COGROUPKSTREAM-AGGREGATE-0000000010 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000008])
      --> COGROUPKSTREAM-MERGE-0000000011
      <-- KSTREAM-SOURCE-0000000001
    Processor: sessions-cogroup-agg-0 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000014])
      --> sessions-cogroup-merge
      <-- KSTREAM-SOURCE-0000000000
    Processor: sessions-cogroup-agg-1 (stores: [COGROUPKSTREAM-AGGREGATE-STATE-STORE-0000000014])
      --> sessions-cogroup-merge
      <-- KSTREAM-SOURCE-0000000001
    Processor: COGROUPKSTREAM-MERGE-0000000005 (stores: [])
      --> KTABLE-TOSTREAM-0000000006
      <-- COGROUPKSTREAM-AGGREGATE-0000000003, COGROUPKSTREAM-AGGREGATE-0000000004
    Processor: COGROUPKSTREAM-MERGE-0000000011 (stores: [])
      --> KTABLE-TOSTREAM-0000000012
      <-- COGROUPKSTREAM-AGGREGATE-0000000009, COGROUPKSTREAM-AGGREGATE-0000000010
    Processor: sessions-cogroup-merge (stores: [])
      --> KTABLE-TOSTREAM-0000000018
      <-- sessions-cogroup-agg-0, sessions-cogroup-agg-1
    Processor: KTABLE-TOSTREAM-0000000006 (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- COGROUPKSTREAM-MERGE-0000000005
    Processor: KTABLE-TOSTREAM-0000000012 (stores: [])
      --> KSTREAM-SINK-0000000013
      <-- COGROUPKSTREAM-MERGE-0000000011
    Processor: KTABLE-TOSTREAM-0000000018 (stores: [])
      --> KSTREAM-SINK-0000000019
      <-- sessions-cogroup-merge
    Sink: KSTREAM-SINK-0000000007 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000006
    Sink: KSTREAM-SINK-0000000013 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000012
    Sink: KSTREAM-SINK-0000000019 (topic: o3)
      <-- KTABLE-TOSTREAM-0000000018

`,
  },
  {
    name: 'global-table-joins',
    build: (b) => {
      const orders = b.stream<string, string>('orders');
      const users = b.globalTable<string, string>('users');
      orders.join(users, (_k, v) => v, (v, u) => v + u).to('o1');
      orders.leftJoin(users, (k) => k, (v, u) => `${v}${u}`, { name: 'lj' }).to('o2');
      b.globalTable('regions', { name: 'regions-src' }, { storeName: 'regions-store' });
      orders.groupByKey().count().toStream().to('o3');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [orders])
      --> KSTREAM-AGGREGATE-0000000011, KSTREAM-LEFTJOIN-0000000004, lj
    Processor: KSTREAM-AGGREGATE-0000000011 (stores: [KSTREAM-AGGREGATE-STATE-STORE-0000000010])
      --> KTABLE-TOSTREAM-0000000012
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-LEFTJOIN-0000000004 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Processor: KTABLE-TOSTREAM-0000000012 (stores: [])
      --> KSTREAM-SINK-0000000013
      <-- KSTREAM-AGGREGATE-0000000011
    Processor: lj (stores: [])
      --> KSTREAM-SINK-0000000007
      <-- KSTREAM-SOURCE-0000000000
    Sink: KSTREAM-SINK-0000000005 (topic: o1)
      <-- KSTREAM-LEFTJOIN-0000000004
    Sink: KSTREAM-SINK-0000000007 (topic: o2)
      <-- lj
    Sink: KSTREAM-SINK-0000000013 (topic: o3)
      <-- KTABLE-TOSTREAM-0000000012

  Sub-topology: 1 for global store (will not generate tasks)
    Source: KSTREAM-SOURCE-0000000002 (topics: [users])
      --> KTABLE-SOURCE-0000000003
    Processor: KTABLE-SOURCE-0000000003 (stores: [users-STATE-STORE-0000000001])
      --> none
      <-- KSTREAM-SOURCE-0000000002
  Sub-topology: 2 for global store (will not generate tasks)
    Source: regions-src-source (topics: [regions])
      --> regions-src
    Processor: regions-src (stores: [regions-store])
      --> none
      <-- regions-src-source
`,
  },
  {
    name: 'global-table-first',
    build: (b) => {
      const users = b.globalTable<string, string>('users');
      b.stream<string, string>('orders').join(users, (_k, v) => v, (v, u) => v + u).to('o1');
      b.stream('other').to('o4');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0 for global store (will not generate tasks)
    Source: KSTREAM-SOURCE-0000000001 (topics: [users])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [users-STATE-STORE-0000000000])
      --> none
      <-- KSTREAM-SOURCE-0000000001
  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000003 (topics: [orders])
      --> KSTREAM-LEFTJOIN-0000000004
    Processor: KSTREAM-LEFTJOIN-0000000004 (stores: [])
      --> KSTREAM-SINK-0000000005
      <-- KSTREAM-SOURCE-0000000003
    Sink: KSTREAM-SINK-0000000005 (topic: o1)
      <-- KSTREAM-LEFTJOIN-0000000004

  Sub-topology: 2
    Source: KSTREAM-SOURCE-0000000006 (topics: [other])
      --> KSTREAM-SINK-0000000007
    Sink: KSTREAM-SINK-0000000007 (topic: o4)
      <-- KSTREAM-SOURCE-0000000006

`,
  },
  {
    name: 'versioned-tables',
    build: (b) => {
      const prices = b.table<string, string>('prices', {}, Materialized.as(Stores.persistentVersionedKeyValueStore('prices-store', 600_000)));
      const orders = b.stream<string, string>('orders');
      orders.join(prices, (v, p) => v + p).to('o1');
      orders.leftJoin(prices, (v, p) => `${v}${p}`, Joined.withGracePeriod(5_000)).to('o2');
      b.stream<string, string>('updates').toTable(undefined, Materialized.as(Stores.persistentVersionedKeyValueStore('updates-store', 600_000))).toStream().to('o3');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000002 (topics: [orders])
      --> KSTREAM-JOIN-0000000003, KSTREAM-LEFTJOIN-0000000005
    Processor: KSTREAM-JOIN-0000000003 (stores: [prices-store])
      --> KSTREAM-SINK-0000000004
      <-- KSTREAM-SOURCE-0000000002
    Processor: KSTREAM-LEFTJOIN-0000000005 (stores: [prices-store, KSTREAM-LEFTJOIN-0000000005-Buffer])
      --> KSTREAM-SINK-0000000006
      <-- KSTREAM-SOURCE-0000000002
    Source: KSTREAM-SOURCE-0000000000 (topics: [prices])
      --> KTABLE-SOURCE-0000000001
    Sink: KSTREAM-SINK-0000000004 (topic: o1)
      <-- KSTREAM-JOIN-0000000003
    Sink: KSTREAM-SINK-0000000006 (topic: o2)
      <-- KSTREAM-LEFTJOIN-0000000005
    Processor: KTABLE-SOURCE-0000000001 (stores: [prices-store])
      --> none
      <-- KSTREAM-SOURCE-0000000000

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000007 (topics: [updates])
      --> KSTREAM-TOTABLE-0000000008
    Processor: KSTREAM-TOTABLE-0000000008 (stores: [updates-store])
      --> KTABLE-TOSTREAM-0000000009
      <-- KSTREAM-SOURCE-0000000007
    Processor: KTABLE-TOSTREAM-0000000009 (stores: [])
      --> KSTREAM-SINK-0000000010
      <-- KSTREAM-TOTABLE-0000000008
    Sink: KSTREAM-SINK-0000000010 (topic: o3)
      <-- KTABLE-TOSTREAM-0000000009

`,
  },
  {
    name: 'foreign-key-joins',
    build: (b) => {
      const orders = b.table<string, string>('orders');
      const products = b.table<string, string>('products');
      orders.join(products, (v) => v.split(':')[0], (o, p) => o + p).toStream().to('o1');
      orders.leftJoin(products, (v) => v.split(':')[0], (o, p) => `${o}${p}`, { name: 'lj', materialized: { storeName: 'lj-store' } }).toStream().to('o2');
    },
    kafkaStreams: `Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000001 (topics: [orders])
      --> KTABLE-SOURCE-0000000002
    Processor: KTABLE-SOURCE-0000000002 (stores: [orders-STATE-STORE-0000000000])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007, lj-subscription-registration-processor
      <-- KSTREAM-SOURCE-0000000001
    Source: KTABLE-SOURCE-0000000016 (topics: [KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017
    Source: lj-subscription-response-source (topics: [lj-subscription-response-topic])
      --> lj-subscription-response-resolver
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017 (stores: [orders-STATE-STORE-0000000000])
      --> KTABLE-FK-JOIN-OUTPUT-0000000018
      <-- KTABLE-SOURCE-0000000016
    Processor: lj-subscription-response-resolver (stores: [orders-STATE-STORE-0000000000])
      --> lj-result
      <-- lj-subscription-response-source
    Processor: KTABLE-FK-JOIN-OUTPUT-0000000018 (stores: [])
      --> KTABLE-TOSTREAM-0000000020
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017
    Processor: lj-result (stores: [lj-store])
      --> KTABLE-TOSTREAM-0000000035
      <-- lj-subscription-response-resolver
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007 (stores: [])
      --> KTABLE-SINK-0000000008
      <-- KTABLE-SOURCE-0000000002
    Processor: KTABLE-TOSTREAM-0000000020 (stores: [])
      --> KSTREAM-SINK-0000000021
      <-- KTABLE-FK-JOIN-OUTPUT-0000000018
    Processor: KTABLE-TOSTREAM-0000000035 (stores: [])
      --> KSTREAM-SINK-0000000036
      <-- lj-result
    Processor: lj-subscription-registration-processor (stores: [])
      --> lj-subscription-registration-sink
      <-- KTABLE-SOURCE-0000000002
    Sink: KSTREAM-SINK-0000000021 (topic: o1)
      <-- KTABLE-TOSTREAM-0000000020
    Sink: KSTREAM-SINK-0000000036 (topic: o2)
      <-- KTABLE-TOSTREAM-0000000035
    Sink: KTABLE-SINK-0000000008 (topic: KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic)
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007
    Sink: lj-subscription-registration-sink (topic: lj-subscription-registration-topic)
      <-- lj-subscription-registration-processor

  Sub-topology: 1
    Source: KSTREAM-SOURCE-0000000004 (topics: [products])
      --> KTABLE-SOURCE-0000000005
    Processor: KTABLE-SOURCE-0000000005 (stores: [products-STATE-STORE-0000000003])
      --> lj-foreign-join-subscription, KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013
      <-- KSTREAM-SOURCE-0000000004
    Source: KTABLE-SOURCE-0000000009 (topics: [KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011
    Source: lj-subscription-registration-source (topics: [lj-subscription-registration-topic])
      --> lj-subscription-receive
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010])
      --> KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012
      <-- KTABLE-SOURCE-0000000009
    Processor: lj-subscription-receive (stores: [lj-subscription-store])
      --> lj-subscription-join-foreign
      <-- lj-subscription-registration-source
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012 (stores: [products-STATE-STORE-0000000003])
      --> KTABLE-SINK-0000000015
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011
    Processor: KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013 (stores: [KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010])
      --> KTABLE-SINK-0000000015
      <-- KTABLE-SOURCE-0000000005
    Processor: lj-foreign-join-subscription (stores: [lj-subscription-store])
      --> lj-subscription-response-sink
      <-- KTABLE-SOURCE-0000000005
    Processor: lj-subscription-join-foreign (stores: [products-STATE-STORE-0000000003])
      --> lj-subscription-response-sink
      <-- lj-subscription-receive
    Sink: KTABLE-SINK-0000000015 (topic: KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic)
      <-- KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012, KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013
    Sink: lj-subscription-response-sink (topic: lj-subscription-response-topic)
      <-- lj-subscription-join-foreign, lj-foreign-join-subscription

`,
  },
];

describe("names as Kafka Streams 3.9 generates them", () => {
  it.each(CASES)('$name: the same description, character for character', ({ build, kafkaStreams }) => {
    const builder = new StreamsBuilder();
    build(builder);
    expect(builder.build().toString()).toBe(kafkaStreams);
  });
});
