import { IllegalStateTransition } from '../../errors';

/** The states of an instance, as Kafka Streams' `KafkaStreams.State`. */
export type StreamsState =
  | 'CREATED'
  | 'REBALANCING'
  | 'RUNNING'
  | 'PENDING_SHUTDOWN'
  | 'NOT_RUNNING'
  | 'PENDING_ERROR'
  | 'ERROR';

/** Kafka Streams' allowed transitions; anything else is a bug and is refused. */
const TRANSITIONS: Record<StreamsState, readonly StreamsState[]> = {
  CREATED: ['REBALANCING', 'PENDING_SHUTDOWN'],
  REBALANCING: ['RUNNING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  RUNNING: ['REBALANCING', 'RUNNING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  PENDING_SHUTDOWN: ['NOT_RUNNING'],
  NOT_RUNNING: [],
  PENDING_ERROR: ['ERROR'],
  ERROR: [],
};

export function isValidTransition(from: StreamsState, to: StreamsState): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface StateChange {
  state: StreamsState;
  previous: StreamsState;
  /** Epoch ms of the change. */
  since: number;
  /** Why the instance stays in this state, when it says (a repeated state with a reason: still waiting). */
  reason?: string;
}

/** Holds the current state and refuses forbidden transitions. */
export class StreamsStateMachine {
  private current: StreamsState = 'CREATED';
  private sinceMs = Date.now();

  constructor(private readonly onChange: (change: StateChange) => void) {}

  get state(): StreamsState {
    return this.current;
  }

  get since(): number {
    return this.sinceMs;
  }

  /** Moves to `to`; returns false (and changes nothing) when already there and a self-transition is not allowed. */
  transition(to: StreamsState): boolean {
    const from = this.current;
    if (from === to && !isValidTransition(from, to)) return false;
    if (!isValidTransition(from, to)) throw new IllegalStateTransition(from, to);
    this.current = to;
    this.sinceMs = Date.now();
    this.onChange({ state: to, previous: from, since: this.sinceMs });
    return true;
  }

  /** Moves to `to` only when allowed; for transitions that races may have made moot (e.g. a close during an error). */
  tryTransition(to: StreamsState): boolean {
    if (!isValidTransition(this.current, to)) return false;
    return this.transition(to);
  }
}
