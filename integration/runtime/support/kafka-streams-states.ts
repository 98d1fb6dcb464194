/**
 * Kafka Streams' `KafkaStreams.State`, written out here independently of the runtime's own table
 * (src/streams/runtime/streams-state.ts), so that a test checks the runtime against Kafka Streams and not against
 * itself. From KafkaStreams.java (identical in 3.x and 4.x):
 *
 *   CREATED(1, 3),          // 0
 *   REBALANCING(2, 3, 5),   // 1
 *   RUNNING(1, 2, 3, 5),    // 2
 *   PENDING_SHUTDOWN(4),    // 3
 *   NOT_RUNNING,            // 4
 *   PENDING_ERROR(6),       // 5
 *   ERROR;                  // 6
 */
import { isValidTransition, type StateChange, type StreamsState } from '../../../src/streams/runtime/streams-state';

export const KAFKA_STREAMS_STATES = ['CREATED', 'REBALANCING', 'RUNNING', 'PENDING_SHUTDOWN', 'NOT_RUNNING', 'PENDING_ERROR', 'ERROR'] as const;

/** The ordinals of each state's valid successors, as in the enum above. */
const SUCCESSOR_ORDINALS: Record<StreamsState, readonly number[]> = {
  CREATED: [1, 3],
  REBALANCING: [2, 3, 5],
  RUNNING: [1, 2, 3, 5],
  PENDING_SHUTDOWN: [4],
  NOT_RUNNING: [],
  PENDING_ERROR: [6],
  ERROR: [],
};

/** Whether Kafka Streams allows `from` → `to`. */
export function kafkaStreamsAllows(from: StreamsState, to: StreamsState): boolean {
  return SUCCESSOR_ORDINALS[from].includes(KAFKA_STREAMS_STATES.indexOf(to));
}

/** Every pair on which the runtime's table and Kafka Streams' differ: `FROM -> TO (runtime: x, Kafka Streams: y)`. */
export function tableDifferences(): string[] {
  const differences: string[] = [];
  for (const from of KAFKA_STREAMS_STATES) {
    for (const to of KAFKA_STREAMS_STATES) {
      const runtime = isValidTransition(from, to);
      const kafkaStreams = kafkaStreamsAllows(from, to);
      if (runtime !== kafkaStreams) differences.push(`${from} -> ${to} (runtime: ${runtime}, Kafka Streams: ${kafkaStreams})`);
    }
  }
  return differences;
}

/**
 * What is wrong with a log of `state` events of one instance, in words (empty: nothing): each change must be
 * allowed by the runtime's table AND by Kafka Streams', start from CREATED and follow on from the one before.
 */
export function transitionProblems(name: string, log: readonly Pick<StateChange, 'previous' | 'state'>[]): string[] {
  const problems: string[] = [];
  let current: StreamsState = 'CREATED';
  log.forEach((change, i) => {
    const pair = `${name}[${i}] ${change.previous} -> ${change.state}`;
    if (change.previous !== current) problems.push(`${pair}: the previous state should be ${current}, the state the log reached`);
    if (!kafkaStreamsAllows(change.previous, change.state)) problems.push(`${pair}: forbidden by Kafka Streams`);
    if (!isValidTransition(change.previous, change.state)) problems.push(`${pair}: forbidden by the runtime's own table`);
    current = change.state;
  });
  return problems;
}

/** `CREATED -> REBALANCING -> RUNNING ...`, for failure messages. */
export function describeLog(log: readonly Pick<StateChange, 'previous' | 'state'>[]): string {
  return ['CREATED', ...log.map((c) => c.state)].join(' -> ');
}
