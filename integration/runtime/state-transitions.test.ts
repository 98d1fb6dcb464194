/**
 * Issue 4, "Must show": the state machine never takes a transition Kafka Streams forbids, asserted from the event
 * log. Every `state` event of the instances is recorded through start, a rebalance (a second instance joins), the
 * second one leaving, its restart (a new instance on the same state directory), a close before start, a close
 * during start, and the final close; each (previous → state) pair is checked against the runtime's table AND an
 * independent copy of Kafka Streams' `KafkaStreams.State` (support/kafka-streams-states.ts). The ERROR path is in
 * poison-record.test.ts, which checks its log the same way.
 */
import { StreamsInstance } from '../../src';
import { wordCountTopology } from '../../examples/word-count';
import type { StateChange } from '../../src/streams/runtime/streams-state';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, KafkaTestClients, bootstrapServers, uniqueName } from '../support/kafka';
import { produceLines, tempStateDir, testLogger, waitFor } from '../support/streams';
import { describeLog, kafkaStreamsAllows, tableDifferences, transitionProblems } from './support/kafka-streams-states';
import { stopAnyway } from './support/stop-anyway';

interface Recorded {
  name: string;
  instance: StreamsInstance;
  log: StateChange[];
}

describe('state transitions', () => {
  const clients = new KafkaTestClients();
  const recorded: Recorded[] = [];
  afterAll(async () => {
    await Promise.allSettled(recorded.map(({ instance }) => stopAnyway(instance)));
    await clients.close();
  }, 40_000);

  const record = (name: string, instance: StreamsInstance): Recorded => {
    const entry: Recorded = { name, instance, log: [] };
    instance.on('state', (change) => entry.log.push(change));
    recorded.push(entry);
    return entry;
  };
  const rebalances = (entry: Recorded) => entry.log.filter((c) => c.state === 'REBALANCING').length;
  const logs = () => recorded.map((r) => `${r.name}: ${describeLog(r.log)}`).join('\n');

  it('the independent Kafka Streams table says what KafkaStreams.State says', () => {
    // A few pairs spelled out, so that a typo in the copy does not pass unnoticed.
    expect(kafkaStreamsAllows('CREATED', 'REBALANCING')).toBe(true);
    expect(kafkaStreamsAllows('CREATED', 'RUNNING')).toBe(false);
    expect(kafkaStreamsAllows('CREATED', 'PENDING_ERROR')).toBe(false);
    expect(kafkaStreamsAllows('RUNNING', 'RUNNING')).toBe(true);
    expect(kafkaStreamsAllows('REBALANCING', 'REBALANCING')).toBe(false);
    expect(kafkaStreamsAllows('PENDING_ERROR', 'PENDING_SHUTDOWN')).toBe(false);
    expect(kafkaStreamsAllows('ERROR', 'PENDING_SHUTDOWN')).toBe(false);
    expect(kafkaStreamsAllows('NOT_RUNNING', 'REBALANCING')).toBe(false);
  });

  it("the runtime's transition table is Kafka Streams' table", () => {
    expect(tableDifferences()).toEqual([]);
  });

  it(
    'start, a joining instance, its leaving and restart, and close take only allowed transitions',
    async () => {
      const applicationId = uniqueName('states');
      const input = uniqueName('states-in');
      const output = uniqueName('states-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 4 }, { name: output, partitions: 4 }]);
      const producer = await clients.producer();
      await produceLines(producer, input, 0, 1000);
      const stateDirs = { a: tempStateDir(), b: tempStateDir() };
      const create = (name: string, stateDir: string) =>
        record(
          name,
          new StreamsInstance(
            wordCountTopology(input, output),
            {
              'application.id': applicationId,
              'bootstrap.servers': bootstrapServers().join(','),
              'state.dir': stateDir,
              'commit.interval.ms': 200,
              'session.timeout.ms': 6000,
              'heartbeat.interval.ms': 1000,
            },
            { logger: testLogger },
          ),
        );

      try {
        // Closed before it ever started.
        const never = create('never-started', tempStateDir());
        await never.instance.close();
        await never.instance.close();
        expect(describeLog(never.log)).toBe('CREATED -> PENDING_SHUTDOWN -> NOT_RUNNING');
        await expect(never.instance.start()).rejects.toThrow();
        expect(never.instance.state).toBe('NOT_RUNNING');

        // A starts alone.
        const a = create('a', stateDirs.a);
        await a.instance.start();
        await waitFor(() => a.instance.state === 'RUNNING', 'a to run', 30_000);

        // B joins: A rebalances and runs again. Input keeps coming meanwhile.
        const b = create('b', stateDirs.b);
        await b.instance.start();
        await produceLines(producer, input, 1000, 1500);
        await waitFor(
          () => a.instance.state === 'RUNNING' && b.instance.state === 'RUNNING' && rebalances(a) >= 2 && a.instance.allMetadata().length === 2,
          'a to have rebalanced for b, and both to run',
          30_000,
        );

        // B leaves (a clean close): A rebalances again.
        await b.instance.close();
        expect(b.instance.state).toBe('NOT_RUNNING');
        await waitFor(() => a.instance.state === 'RUNNING' && rebalances(a) >= 3 && a.instance.allMetadata().length === 1, 'a to have rebalanced after b left', 30_000);

        // B restarts: a new instance on B's state directory.
        const b2 = create('b-restarted', stateDirs.b);
        await b2.instance.start();
        await produceLines(producer, input, 1500, 2000);
        await waitFor(
          () => a.instance.state === 'RUNNING' && b2.instance.state === 'RUNNING' && rebalances(a) >= 4 && a.instance.allMetadata().length === 2,
          'a to have rebalanced for the restarted b, and both to run',
          30_000,
        );

        // Close both, B first while A runs, then A.
        await b2.instance.close({ timeoutMs: 15_000 });
        await a.instance.close({ timeoutMs: 15_000 });
        // Closing a closed instance changes nothing.
        await a.instance.close();

        for (const entry of [a, b, b2]) {
          expect({ name: entry.name, last: entry.log[entry.log.length - 1]?.state, state: entry.instance.state }).toEqual({
            name: entry.name,
            last: 'NOT_RUNNING',
            state: 'NOT_RUNNING',
          });
          expect(describeLog(entry.log)).toMatch(/^CREATED -> REBALANCING -> (.* -> )?RUNNING -> PENDING_SHUTDOWN -> NOT_RUNNING$/);
        }
        expect(rebalances(a)).toBeGreaterThanOrEqual(4);
        // The times of the changes never go back.
        for (const entry of recorded) {
          for (let i = 1; i < entry.log.length; i++) expect(entry.log[i]!.since).toBeGreaterThanOrEqual(entry.log[i - 1]!.since);
        }
        expect(recorded.flatMap((entry) => transitionProblems(entry.name, entry.log))).toEqual([]);
      } catch (error) {
        process.stderr.write(`state logs:\n${logs()}\n`);
        throw error;
      }
      process.stderr.write(`state logs:\n${logs()}\n`);
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'a start that fails (a missing source topic) goes through PENDING_ERROR to ERROR and keeps the error',
    async () => {
      const missing = uniqueName('states-missing-in');
      const failing = record(
        'failed-start',
        new StreamsInstance(
          wordCountTopology(missing, uniqueName('states-missing-out')),
          { 'application.id': uniqueName('states-missing'), 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir() },
          { logger: testLogger },
        ),
      );
      // The error event is poison-record.test.ts' concern; here it is only listened to.
      failing.instance.on('error', () => undefined);
      const rejection = await failing.instance.start().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(rejection).toBeInstanceOf(Error);
      expect(failing.instance.state).toBe('ERROR');
      expect(describeLog(failing.log)).toBe('CREATED -> REBALANCING -> PENDING_ERROR -> ERROR');
      expect(transitionProblems(failing.name, failing.log)).toEqual([]);
      await failing.instance.close();
      expect(failing.instance.state).toBe('ERROR');
      // The error says what is wrong: which topic is missing.
      expect(failing.instance.lastError).toBe(rejection);
      expect(failing.instance.lastError?.message).toContain(missing);
    },
    BROKER_TEST_TIMEOUT_MS,
  );

  it(
    'a close while start is under way takes only allowed transitions and leaves nothing running',
    async () => {
      const applicationId = uniqueName('states-early-close');
      const input = uniqueName('states-early-close-in');
      const output = uniqueName('states-early-close-out');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: 2 }, { name: output, partitions: 2 }]);
      await produceLines(await clients.producer(), input, 0, 200);
      const early = record(
        'closed-during-start',
        new StreamsInstance(
          wordCountTopology(input, output),
          { 'application.id': applicationId, 'bootstrap.servers': bootstrapServers().join(','), 'state.dir': tempStateDir(), 'commit.interval.ms': 200 },
          { logger: testLogger },
        ),
      );
      const starting = early.instance.start().then(
        () => 'started',
        (error: unknown) => `start failed: ${String(error)}`,
      );
      await new Promise((resolve) => setImmediate(resolve));
      await early.instance.close({ timeoutMs: 15_000 });
      const startOutcome = await starting;
      // Give a start that carried on past the close the time to join the group.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const [group] = (await admin.describeGroups([applicationId])).groups;
      const summary = {
        state: early.instance.state,
        log: describeLog(early.log),
        problems: transitionProblems(early.name, early.log),
        liveThreads: early.instance.threads().filter((t) => t.state !== 'DEAD').map((t) => `${t.name}: ${t.state}`),
        groupMembers: group?.members.length ?? 0,
      };
      expect({ startOutcome, ...summary }).toEqual({
        startOutcome,
        state: 'NOT_RUNNING',
        log: 'CREATED -> REBALANCING -> PENDING_SHUTDOWN -> NOT_RUNNING',
        problems: [],
        liveThreads: [],
        groupMembers: 0,
      });
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
