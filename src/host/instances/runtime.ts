import type { Logger } from 'pino';
import type { InstanceView, StreamsEvents } from '../../streams/runtime/instance-view';
import type { ConfigValue } from '../../streams/runtime/streams-config';
import { StreamsInstance } from '../../streams/runtime/streams-instance';
import type { Topology } from '../../streams/topology/topology';

/** What the host does with a streams runtime: `StreamsInstance`, or a stand-in in unit tests. */
export interface StreamsRuntime extends InstanceView {
  start(): Promise<void>;
  close(options?: { timeoutMs?: number }): Promise<void>;
  cleanUp(): void;
  on<E extends keyof StreamsEvents>(event: E, listener: (...args: StreamsEvents[E]) => void): unknown;
  off<E extends keyof StreamsEvents>(event: E, listener: (...args: StreamsEvents[E]) => void): unknown;
}

export type RuntimeFactory = (topology: Topology, config: Readonly<Record<string, ConfigValue>>) => StreamsRuntime;

export function streamsInstanceFactory(logger: Logger): RuntimeFactory {
  return (topology, config) => new StreamsInstance(topology, config, { logger });
}
