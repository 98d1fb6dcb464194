import { SerdeNotReady } from '../../errors';
import { StreamsBuilder } from '../kstream/streams-builder';
import type { Serde, SerdeHeaders } from '../serdes/serde';
import { Serdes } from '../serdes/serdes';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';

/** A string serde that frames its bytes with the topic, as a registry serde frames them with a schema id. */
function topicFramed(calls: string[]): Serde<string> {
  const plain = Serdes.String();
  return {
    ...plain,
    name: 'topic-framed',
    serialize: () => {
      throw new Error('called without its topic');
    },
    deserialize: () => {
      throw new Error('called without its topic');
    },
    serializeTopic(topic: string, _headers: SerdeHeaders | undefined, value: string) {
      calls.push(`serialize ${topic}`);
      return Buffer.from(`${topic}|${value}`);
    },
    deserializeTopic(topic: string, headers: SerdeHeaders | undefined, bytes: Buffer) {
      calls.push(`deserialize ${topic}${headers?.['h'] === undefined ? '' : ` h=${String(headers['h'])}`}`);
      const text = bytes.toString();
      if (!text.startsWith(`${topic}|`)) throw new Error(`framed for another topic: ${text}`);
      return text.slice(topic.length + 1);
    },
  };
}

describe('serdes that take the topic', () => {
  it('are called with the source, sink, repartition and changelog topics, as Kafka Streams names them', async () => {
    const calls: string[] = [];
    const serde = topicFramed(calls);
    const b = new StreamsBuilder();
    b.stream<string, string>('words', { keySerde: serde, valueSerde: serde })
      .groupBy((_k, v) => v, { name: 'by-word', keySerde: serde, valueSerde: serde })
      .reduce((_a, v) => v, { storeName: 'last', keySerde: serde, valueSerde: serde })
      .toStream()
      .to('out', { keySerde: serde, valueSerde: serde });
    const driver = new TopologyTestDriver(b.build(), { 'application.id': 'app' });
    try {
      driver.createInputTopic('words', serde, serde).pipeInput('k', 'hello', 0, { h: 'v' });
      expect(new Set(calls)).toEqual(
        new Set([
          'serialize words',
          'deserialize words h=v',
          'serialize app-by-word-repartition',
          'deserialize app-by-word-repartition h=v',
          'serialize app-last-changelog',
          'serialize out',
        ]),
      );
      expect(driver.createOutputTopic('out', serde, serde).readKeyValue()).toEqual({ key: 'hello', value: 'hello' });
      expect(driver.getTimestampedKeyValueStore<string, string>('last').get('hello')?.value).toBe('hello');
    } finally {
      await driver.close();
    }
  });

  it('a table update through a repartition topic hands the topic to the value serde inside it', async () => {
    const calls: string[] = [];
    const serde = topicFramed(calls);
    const b = new StreamsBuilder();
    b.table<string, string>('users', { valueSerde: serde })
      .groupBy((k, v) => ({ key: v, value: k }), { name: 'by-city', valueSerde: serde })
      .count()
      .toStream()
      .to('per-city', { valueSerde: Serdes.Long() });
    const driver = new TopologyTestDriver(b.build(), { 'application.id': 'app' });
    try {
      driver.createInputTopic('users', Serdes.String(), serde).pipeInput('ann', 'paris', 0);
      expect(calls).toEqual(expect.arrayContaining(['deserialize users', 'serialize app-by-city-repartition', 'deserialize app-by-city-repartition']));
      expect(driver.createOutputTopic('per-city', Serdes.String(), Serdes.Long()).readKeyValue()).toEqual({ key: 'paris', value: 1 });
    } finally {
      await driver.close();
    }
  });

  it('a record whose serde is not ready is processed again once it is, before the records after it', async () => {
    let ready = false;
    let settle: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (settle = resolve));
    const base = Serdes.String();
    const slow: Serde<string> = {
      ...base,
      deserializeTopic(_topic, _headers, bytes) {
        if (!ready) throw new SerdeNotReady('schema 7 is being looked up', waiting);
        return bytes.toString();
      },
    };
    const b = new StreamsBuilder();
    b.stream<string, string>('in', { valueSerde: slow }).to('out');
    const driver = new TopologyTestDriver(b.build(), { 'application.id': 'app' });
    try {
      const input = driver.createInputTopic('in', Serdes.String(), Serdes.String());
      expect(() => input.pipeInput('a', 'first', 0)).toThrow(SerdeNotReady);
      ready = true;
      settle();
      await waiting;
      input.pipeInput('b', 'second', 1);
      expect(driver.createOutputTopic('out', Serdes.String(), Serdes.String()).readValuesToList()).toEqual(['first', 'second']);
    } finally {
      await driver.close();
    }
  });
});
