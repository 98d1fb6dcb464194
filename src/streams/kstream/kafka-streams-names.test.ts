import { StreamsBuilder } from './streams-builder';
import { TimeWindows } from './windows';

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
];

describe("names as Kafka Streams 3.9 generates them", () => {
  it.each(CASES)('$name: the same description, character for character', ({ build, kafkaStreams }) => {
    const builder = new StreamsBuilder();
    build(builder);
    expect(builder.build().toString()).toBe(kafkaStreams);
  });
});
