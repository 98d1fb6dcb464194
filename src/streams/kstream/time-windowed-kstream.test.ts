import { TopologyException } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { timeWindowedSerde } from '../serdes/windowed';
import type { Windowed } from '../state/store';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import type { Topology } from '../topology/topology';
import type { KTable } from './ktable';
import { StreamsBuilder } from './streams-builder';
import { Suppressed } from './suppressed';
import { SlidingWindows, TimeWindows } from './windows';

const STRING = Serdes.String();

/** `input` (string keys and values) grouped by key and windowed; the table's updates go to `output`. */
function windowedCount(
  windows: TimeWindows | SlidingWindows,
  then: (table: KTable<Windowed<string>, number>) => KTable<Windowed<string>, number> = (table) => table,
  retentionMs?: number,
): Topology {
  const builder = new StreamsBuilder();
  const counts = builder
    .stream<string, string>('input', { keySerde: STRING, valueSerde: STRING })
    .groupByKey()
    .windowedBy(windows)
    .count({ storeName: 'counts', ...(retentionMs === undefined ? {} : { retentionMs }) });
  then(counts).toStream().to('output', { valueSerde: Serdes.Long() });
  return builder.build();
}

/** Output records as `key@[start,end) = count (timestamp)`. */
function drain(driver: TopologyTestDriver, sizeMs: number): string[] {
  const output = driver.createOutputTopic('output', timeWindowedSerde(STRING, sizeMs), Serdes.Long());
  return output.readRecordsToList().map((r) => `${r.key!.key}@${r.key!.window.start}-${r.key!.window.end}=${r.value} (${r.timestamp})`);
}

describe('TimeWindowedKStream', () => {
  let driver: TopologyTestDriver | undefined;

  afterEach(async () => {
    await driver?.close();
    driver = undefined;
  });

  function start(topology: Topology, config: Record<string, unknown> = {}): (key: string, timestamp: number) => void {
    driver = new TopologyTestDriver(topology, { 'application.id': 'windows', ...config }, 0);
    const input = driver.createInputTopic('input', STRING, STRING);
    return (key, timestamp) => input.pipeInput(key, 'v', timestamp);
  }

  it('counts tumbling windows with out-of-order records, and drops and counts those later than the grace', () => {
    const pipe = start(windowedCount(TimeWindows.ofSizeAndGrace(10, 5)));
    pipe('a', 1);
    pipe('a', 12);
    pipe('a', 8); // out of order, its window [0,10) closes at stream time 15: accepted
    pipe('b', 3);
    pipe('a', 21);
    pipe('a', 9); // [0,10) closed at 15 and stream time is 21: dropped
    pipe('a', 15); // [10,20) is open until 25
    expect(drain(driver!, 10)).toEqual([
      'a@0-10=1 (1)',
      'a@10-20=1 (12)',
      'a@0-10=2 (8)',
      'b@0-10=1 (3)',
      'a@20-30=1 (21)',
      'a@10-20=2 (15)',
    ]);
    expect(driver!.droppedRecords).toBe(1);
    const store = driver!.getWindowStore<string, { value: number; timestamp: number }>('counts');
    expect(store.type).toBe('timestamped_window');
    expect(store.fetch('a', 10)).toEqual({ value: 2, timestamp: 15 });
    // Retention is size + grace by default: [0,10) has left the store once windows start at 20, but as in Kafka
    // Streams the record cache still holds it (the next test reads without the cache).
    expect([...store.fetchRange('a', 0, 30)].map((kv) => [kv.key, kv.value.value])).toEqual([
      [0, 2],
      [10, 2],
      [20, 1],
    ]);
  });

  it('updates every hopping window a record falls into, oldest first', () => {
    const pipe = start(windowedCount(TimeWindows.ofSizeWithNoGrace(10).advanceBy(5)));
    pipe('a', 7);
    pipe('a', 12);
    expect(drain(driver!, 10)).toEqual(['a@0-10=1 (7)', 'a@5-15=1 (7)', 'a@5-15=2 (12)', 'a@10-20=1 (12)']);
  });

  it('writes windowed keys to topics in the time-windowed layout: key bytes, then the 8-byte window start', () => {
    const pipe = start(windowedCount(TimeWindows.ofSizeWithNoGrace(10)));
    pipe('a', 42);
    const output = driver!.createOutputTopic('output', Serdes.Bytes(), Serdes.Long());
    const record = output.readRecord();
    expect(record.key!.toString('hex')).toBe(Buffer.from('a').toString('hex') + '0000000000000028');
    expect(record.value).toBe(1);
  });

  it('emits only final results with suppress(untilWindowCloses), as stream time closes the windows', () => {
    const pipe = start(
      windowedCount(TimeWindows.ofSizeAndGrace(10, 2), (table) => table.suppress(Suppressed.untilWindowCloses())),
    );
    pipe('a', 1);
    pipe('a', 5);
    pipe('b', 6);
    pipe('a', 11); // stream time 11: [0,10) is still open for 2 ms of grace
    expect(drain(driver!, 10)).toEqual([]);
    pipe('a', 9); // late but within grace
    pipe('a', 12); // 12 >= 10 + 2: [0,10) closes; ties in key order
    expect(drain(driver!, 10)).toEqual(['a@0-10=3 (9)', 'b@0-10=1 (6)']);
    pipe('a', 3); // too late: dropped, nothing emitted
    pipe('c', 35);
    expect(drain(driver!, 10)).toEqual(['a@10-20=2 (12)']);
    expect(driver!.droppedRecords).toBe(1);
  });

  it('aggregates sliding windows: left and right windows of each record, out-of-order records included', () => {
    const pipe = start(windowedCount(SlidingWindows.ofTimeDifferenceAndGrace(10, 100)));
    pipe('a', 20);
    expect(drain(driver!, 10)).toEqual(['a@10-20=1 (20)']);
    pipe('a', 25);
    expect(drain(driver!, 10)).toEqual(['a@21-31=1 (25)', 'a@15-25=2 (25)']);
    pipe('a', 22);
    expect(drain(driver!, 10)).toEqual(['a@21-31=2 (25)', 'a@15-25=3 (25)', 'a@12-22=2 (22)', 'a@23-33=1 (25)']);
  });

  it('puts sliding-window records earlier than the difference into the window [0, difference]', () => {
    const pipe = start(windowedCount(SlidingWindows.ofTimeDifferenceAndGrace(10, 100)));
    pipe('a', 3);
    pipe('a', 6);
    pipe('a', 4);
    expect(drain(driver!, 10)).toEqual(['a@0-10=1 (3)', 'a@4-14=1 (6)', 'a@0-10=2 (6)', 'a@4-14=2 (6)', 'a@5-15=1 (6)', 'a@0-10=3 (6)']);
  });

  it('drops sliding-window records later than the grace', () => {
    const pipe = start(windowedCount(SlidingWindows.ofTimeDifferenceWithNoGrace(10)));
    pipe('a', 50);
    pipe('a', 39); // its right window would end at 49 < 50
    expect(drain(driver!, 10)).toEqual(['a@40-50=1 (50)']);
    expect(driver!.droppedRecords).toBe(1);
  });

  it('removes windows past the retention period', () => {
    // Without the record cache, which would still hold them.
    const pipe = start(windowedCount(TimeWindows.ofSizeWithNoGrace(10), (table) => table, 20), { 'statestore.cache.max.bytes': 0 });
    pipe('a', 1);
    pipe('a', 15);
    const store = driver!.getWindowStore<string, { value: number; timestamp: number }>('counts');
    expect(store.fetch('a', 0)?.value).toBe(1);
    pipe('a', 45);
    expect(store.fetch('a', 0)).toBeUndefined();
    expect(store.fetch('a', 10)).toBeUndefined();
    expect([...store.fetchAll(0, 100)].map((kv) => [kv.key.key, kv.key.window.start, kv.value.value])).toEqual([['a', 40, 1]]);
  });

  it('refuses a retention shorter than the window size plus the grace', () => {
    expect(() => windowedCount(TimeWindows.ofSizeAndGrace(10, 5), (table) => table, 14)).toThrow(TopologyException);
    expect(() => windowedCount(SlidingWindows.ofTimeDifferenceWithNoGrace(10), (table) => table, 19)).toThrow(/twice the time difference/);
  });

  it('sizes the window store and its changelog from the windows', () => {
    const topology = windowedCount(TimeWindows.ofSizeAndGrace(60000, 5000));
    const store = topology.store('counts')!;
    expect(store.type).toBe('timestamped_window');
    expect(store.retentionPeriod).toBe(65000);
    expect(store.logConfig).toEqual({ 'cleanup.policy': 'compact,delete', 'retention.ms': String(65000 + 86400000) });
  });
});
