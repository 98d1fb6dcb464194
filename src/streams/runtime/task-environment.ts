import type { RecordMetadata } from '../processor/record';
import type { StateStore } from '../state/store';
import type { ExceptionHandlers } from './exception-handlers';
import type { TopologyEvent } from './instance-view';
import type { RecordCollector } from './record-collector';
import type { RecordTracing } from './record-tracing';
import type { StateEnvironment } from './state-manager';

/** Everything an active task needs from the runtime (or the test driver) that hosts it: its stores' needs, and processing's. */
export interface TaskEnvironment extends StateEnvironment {
  /** A task that is no sub-topology on a partition (the global stores' task) is named so; else by its id. */
  readonly taskName?: string;
  readonly collector: RecordCollector;
  /** The real topic name of a topic as written in the topology (internal topics get the application id). */
  resolveTopic(topic: string): string;
  /** What the task asks about a record it cannot deserialize, or a processor threw on. */
  readonly exceptionHandlers: Pick<ExceptionHandlers, 'deserialization' | 'processing'>;
  /** Where a record a handler skipped is sent (`errors.dead.letter.queue.topic.name`); undefined: nowhere. */
  readonly deadLetterQueueTopic?: string;
  /** Called for every record skipped (a handler's choice, invalid timestamp, late record); counted as dropped. */
  onDropped?(reason: string, record: RecordMetadata | undefined, error?: unknown): void;
  /** Called for every record sent to the dead-letter queue. */
  onDeadLetter?(): void;
  readonly wallClock: () => number;
  /** The global stores, which every processor may read without being connected to them. */
  readonly globalStores?: ReadonlyMap<string, StateStore>;
  /** Traces of the records processed (OpenTelemetry); undefined when tracing is off. */
  readonly recordTracing?: RecordTracing;
  /** Where the records processors publish to the topology's event types go (the instance's `topologyEvent`). */
  readonly publishEvent?: (event: TopologyEvent) => void;
}
