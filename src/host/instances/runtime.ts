import type { Logger } from 'pino';
import type { InstanceView, StreamsEvents } from '../../streams/runtime/instance-view';
import type { StreamsInstanceOptions } from '../../streams/runtime/instance-parts';
import type { ConfigValue } from '../../streams/runtime/streams-config';
import type { MemoryBudget } from '../../streams/runtime/memory-budget';
import { StreamsInstance } from '../../streams/runtime/streams-instance';
import type { Topology } from '../../streams/topology/topology';
import type { TopologySource } from '../../streams/runtime/worker/topology-source';

/** What the host does with a streams runtime: `StreamsInstance`, or a stand-in in unit tests. */
export interface StreamsRuntime extends InstanceView {
  start(): Promise<void>;
  close(options?: { timeoutMs?: number; leaveGroup?: boolean }): Promise<void>;
  cleanUp(): void;
  on<E extends keyof StreamsEvents>(event: E, listener: (...args: StreamsEvents[E]) => void): unknown;
  off<E extends keyof StreamsEvents>(event: E, listener: (...args: StreamsEvents[E]) => void): unknown;
}

/** `source`: where stream threads in workers build the same topology from (none: every thread on the main thread). */
export type RuntimeFactory = (topology: Topology, config: Readonly<Record<string, ConfigValue>>, source?: TopologySource) => StreamsRuntime;

/**
 * `kafkaLogger`: where kafkajs' lines go, at its own level; default the instance's logger at warn. `memoryBudget`: the
 * node's, which every instance's threads share. `traceRecords`: how records are traced, when tracing is on, asked as
 * each instance is made (the host knows it once OpenTelemetry's SDK has started).
 */
export function streamsInstanceFactory(
  logger: Logger,
  kafkaLogger?: Logger,
  memoryBudget?: MemoryBudget,
  tracing?: () => StreamsInstanceOptions['traceRecords'],
): RuntimeFactory {
  return (topology, config, source) => {
    const traceRecords = tracing?.();
    return new StreamsInstance(topology, config, {
      logger,
      ...(kafkaLogger ? { kafkaLogger } : {}),
      ...(source ? { topologySource: source } : {}),
      ...(traceRecords === undefined ? {} : { traceRecords }),
      ...(memoryBudget ? { memoryBudget } : {}),
    });
  };
}
