import type { Serde } from '../../src/streams/serdes/serde';
import { Serdes } from '../../src/streams/serdes/serdes';
import { TopologyTestDriver } from '../../src/streams/test-driver/topology-test-driver';
import type { TestInputTopic, TestOutputTopic } from '../../src/streams/test-driver/test-topics';
import { StreamsBuilder } from '../../src/streams/kstream/streams-builder';
import type { Run, RunResult } from './kafka-streams-driver';
import type { OutputRecord } from './scenarios';
import { TOPOLOGIES, type TopologyName } from './topologies';

/** Runs one run through Sluice's TopologyTestDriver, as KafkaStreamsDriver.java does through Kafka Streams'. */
export async function runSluice(run: Run): Promise<RunResult> {
  const builder = new StreamsBuilder();
  TOPOLOGIES[run.topology as TopologyName](builder);
  const config = { 'application.id': 'differential', 'statestore.cache.max.bytes': run.caching ? 10 * 1024 * 1024 : 0 };
  const driver = new TopologyTestDriver(builder.build(), config, 0);
  const records: OutputRecord[] = [];
  try {
    const inputs = new Map<string, TestInputTopic<string, string>>();
    const outputs = run.outputs.map(({ topic, value }) => ({
      topic,
      reader: driver.createOutputTopic(topic, Serdes.String(), (value === 'long' ? Serdes.Long() : Serdes.String()) as Serde<string | number>),
    }));
    run.inputs.forEach((input, step) => {
      let topic = inputs.get(input.topic);
      if (!topic) {
        topic = driver.createInputTopic(input.topic, Serdes.String(), Serdes.String());
        inputs.set(input.topic, topic);
      }
      topic.pipeInput(input.key, input.value, input.timestamp);
      for (const { topic: name, reader } of outputs) records.push(...read(step, name, reader));
    });
    return { id: run.id, records };
  } catch (error) {
    return { id: run.id, records, error: String(error) };
  } finally {
    await driver.close();
  }
}

function read(step: number, topic: string, reader: TestOutputTopic<string, string | number>): OutputRecord[] {
  return reader.readRecordsToList().map(({ key, value, timestamp }) => ({ step, topic, key, value, timestamp }));
}
