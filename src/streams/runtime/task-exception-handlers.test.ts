import { StreamsBuilder } from '../kstream/streams-builder';
import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import type { ProcessorContext } from '../processor/processor';
import { Topology } from '../topology/topology';
import { DLQ_HEADERS } from './exception-handlers';

/** in → (throws on key 'bad') → out-a, and in → out-b: two branches of one source. */
function twoBranches() {
  const builder = new StreamsBuilder();
  const stream = builder.stream<string, string>('in', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  stream
    .mapValues((value, key) => {
      if (key === 'bad') throw new TypeError(`cannot map ${value}`);
      return value.toUpperCase();
    })
    .to('out-a', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  stream.to('out-b', { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  return builder.build();
}

const strings = Serdes.String();

/** A wall-clock punctuator every 100 ms that throws at its first run and forwards its timestamp after. */
function failingPunctuator(): Topology {
  return new Topology()
    .addSource('in', 'input', { keySerde: strings, valueSerde: strings })
    .addProcessor(
      'ticker',
      () => {
        let runs = 0;
        return {
          init(context: ProcessorContext<string, string>) {
            context.schedule(100, 'WALL_CLOCK_TIME', (ts) => {
              if (++runs === 1) throw new RangeError(`tick ${ts} failed`);
              context.forward({ key: 'tick', value: String(ts), timestamp: ts, headers: {} });
            });
          },
          process() {},
        };
      },
      'in',
    )
    .addSink('out', 'output', { keySerde: strings, valueSerde: strings }, 'ticker');
}

describe("a task's exception handlers", () => {
  it('skip a failed record at the node that threw: its sibling branch still gets it, and the dead-letter queue the raw record', () => {
    const driver = new TopologyTestDriver(twoBranches(), {
      'processing.exception.handler': 'LogAndContinueProcessingExceptionHandler',
      'errors.dead.letter.queue.topic.name': 'dlq',
    });
    const input = driver.createInputTopic('in', strings, strings);
    input.pipeInput('good', 'a', 5, {});
    input.pipeInput('bad', 'b', 6, { trace: 'id-1' });
    input.pipeInput('good', 'c', 7, {});
    expect(driver.createOutputTopic('out-a', strings, strings).readKeyValuesToList()).toEqual([
      { key: 'good', value: 'A' },
      { key: 'good', value: 'C' },
    ]);
    expect(driver.createOutputTopic('out-b', strings, strings).readValuesToList()).toEqual(['a', 'b', 'c']);
    const [dead] = driver.createOutputTopic('dlq', strings, strings).readRecordsToList();
    expect(dead).toMatchObject({ key: 'bad', value: 'b', timestamp: 6 });
    expect(dead!.headers).toMatchObject({
      trace: 'id-1',
      [DLQ_HEADERS.exception]: 'TypeError',
      [DLQ_HEADERS.message]: 'cannot map b',
      [DLQ_HEADERS.topic]: 'in',
      [DLQ_HEADERS.partition]: '0',
      [DLQ_HEADERS.offset]: '1',
    });
    expect(driver.droppedRecords).toBe(1);
    driver.close();
  });

  it('fail by default, naming the node and the error', () => {
    const driver = new TopologyTestDriver(twoBranches());
    const input = driver.createInputTopic('in', strings, strings);
    expect(() => input.pipeInput('bad', 'b')).toThrow(/Processor '.*MAPVALUES.*' of task 0_0 failed: cannot map b/);
    driver.close();
  });

  it('send a record that cannot be deserialized to the dead-letter queue under LogAndContinueExceptionHandler', () => {
    const builder = new StreamsBuilder();
    builder.stream<string, number>('nums', { keySerde: Serdes.String(), valueSerde: Serdes.Long() }).to('out', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
    const driver = new TopologyTestDriver(builder.build(), {
      'default.deserialization.exception.handler': 'LogAndContinueExceptionHandler',
      'errors.dead.letter.queue.topic.name': 'dlq',
    });
    driver.createInputTopic('nums', strings, Serdes.Bytes()).pipeInput('k', Buffer.from([1, 2, 3]), 9);
    const [dead] = driver.createOutputTopic('dlq', strings, Serdes.Bytes()).readRecordsToList();
    expect(dead).toMatchObject({ key: 'k', value: Buffer.from([1, 2, 3]), timestamp: 9 });
    expect(dead!.headers).toMatchObject({ [DLQ_HEADERS.topic]: 'nums', [DLQ_HEADERS.offset]: '0' });
    expect(dead!.headers[DLQ_HEADERS.message]).toBeTruthy();
    expect(driver.createOutputTopic('out', strings, Serdes.Long()).readRecordsToList()).toEqual([]);
    expect(driver.droppedRecords).toBe(1);
    driver.close();
  });

  it("ask the processing handler about a punctuator's error, with no record and no source, as Kafka Streams does", () => {
    const continuing = new TopologyTestDriver(failingPunctuator(), { 'processing.exception.handler': 'LogAndContinueProcessingExceptionHandler' }, 1000);
    continuing.advanceWallClockTime(100);
    continuing.advanceWallClockTime(100);
    expect(continuing.createOutputTopic('output', strings, strings).readValuesToList()).toEqual(['1200']);
    expect(continuing.droppedRecords).toBe(1);
    continuing.close();

    const failing = new TopologyTestDriver(failingPunctuator(), {}, 1000);
    expect(() => failing.advanceWallClockTime(100)).toThrow(/Processor 'ticker' of task 0_0 failed: tick 1100 failed/);
    failing.close();
  });
});
