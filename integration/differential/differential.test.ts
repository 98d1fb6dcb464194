import { runKafkaStreams, unavailable, type Run, type RunResult } from './kafka-streams-driver';
import { SCENARIOS, type Difference } from './scenarios';
import { runSluice } from './sluice-driver';

/**
 * The differential suite: every scenario of scenarios.ts runs through Kafka Streams 3.9.1's own TopologyTestDriver
 * (KafkaStreamsDriver.java, one JVM for the whole file) and through Sluice's, with caching off and on, and the
 * output records must be the same: topic, key, value, timestamp, order, and after which input record they came.
 * Where Sluice differs on purpose, the scenario names the input record after which it does, what Sluice outputs
 * there instead, and why; that difference must still be there in Kafka Streams' output.
 */
const RUNS: (Run & { differences: Difference[] })[] = SCENARIOS.flatMap((scenario) =>
  [false, true].map((caching) => ({
    id: `${scenario.name} [caching ${caching ? 'on' : 'off'}]`,
    topology: scenario.topology,
    caching,
    inputs: scenario.inputs,
    outputs: scenario.outputs,
    differences: (scenario.differences ?? []).filter((difference) => difference.caching === caching),
  })),
);

/** Kafka Streams' result with Sluice's records in place of Kafka Streams' at each step where they differ on purpose. */
function expectedOfSluice(kafkaStreams: RunResult, run: Run, differences: Difference[]): RunResult {
  const records = run.inputs.flatMap((_input, step) => {
    const difference = differences.find((d) => d.step === step);
    return difference === undefined ? kafkaStreams.records.filter((r) => r.step === step) : difference.sluice.map((r) => ({ step, ...r }));
  });
  return { ...kafkaStreams, records };
}

const skipped = unavailable();
if (skipped !== undefined) process.stderr.write(`Differential suite against Kafka Streams skipped: ${skipped}\n`);
const describeIfAvailable = skipped === undefined ? describe : describe.skip;

describeIfAvailable('the same outputs as Kafka Streams 3.9.1 TopologyTestDriver', () => {
  let kafkaStreams: Map<string, RunResult>;

  beforeAll(async () => {
    kafkaStreams = await runKafkaStreams(RUNS);
  }, 300_000);

  it.each(RUNS)('$id', async ({ differences, ...run }) => {
    const expected = kafkaStreams.get(run.id);
    if (expected === undefined) throw new Error(`Kafka Streams gave no result for ${run.id}`);
    // A scenario Kafka Streams fails on compares nothing: it must be fixed, not matched.
    expect(expected.error).toBeUndefined();
    for (const difference of differences) {
      const atStep = expected.records.filter((r) => r.step === difference.step).map(({ step: _step, ...r }) => r);
      expect(atStep).not.toEqual(difference.sluice);
    }
    expect(await runSluice(run)).toEqual(expectedOfSluice(expected, run, differences));
  });
});
