/** A streams runtime without Kafka, for the host's unit tests: it moves through Kafka Streams' states on command. */

import { EventEmitter } from 'node:events';
import { IllegalState } from '../../errors';
import { MetricsRegistry } from '../../streams/metrics/metrics-registry';
import type { StreamsEvents } from '../../streams/runtime/instance-view';
import { parseStreamsConfig, type ConfigValue, type StreamsConfig } from '../../streams/runtime/streams-config';
import { StreamsStateMachine } from '../../streams/runtime/streams-state';
import type { Topology } from '../../streams/topology/topology';
import type { RuntimeFactory, StreamsRuntime } from '../instances/runtime';

export class FakeRuntime extends EventEmitter<StreamsEvents> implements StreamsRuntime {
  readonly config: StreamsConfig;
  readonly applicationId: string;
  readonly metrics = new MetricsRegistry();
  readonly createdAt = Date.now();
  readonly machine = new StreamsStateMachine((change) => this.emit('state', change));
  cleanedUp = 0;
  /** The options of each close, in order. */
  readonly closes: { timeoutMs?: number; leaveGroup?: boolean }[] = [];
  error: Error | undefined;
  /** When set, start() fails with it after moving to REBALANCING (as a broker that cannot be reached would). */
  startFailure: Error | undefined;

  constructor(
    readonly topology: Topology,
    config: Readonly<Record<string, ConfigValue>>,
  ) {
    super();
    this.config = parseStreamsConfig(config);
    this.applicationId = this.config.applicationId;
  }

  get state() {
    return this.machine.state;
  }

  get stateSince() {
    return this.machine.since;
  }

  get lastError() {
    return this.error;
  }

  async start(): Promise<void> {
    this.machine.transition('REBALANCING');
    await new Promise((resolve) => setImmediate(resolve));
    if (this.startFailure) throw this.startFailure;
  }

  run(): void {
    this.machine.transition('RUNNING');
  }

  fail(error: Error): void {
    this.error = error;
    this.machine.transition('PENDING_ERROR');
    this.machine.transition('ERROR');
  }

  async close(options: { timeoutMs?: number; leaveGroup?: boolean } = {}): Promise<void> {
    this.closes.push(options);
    if (!this.machine.tryTransition('PENDING_SHUTDOWN')) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.machine.transition('NOT_RUNNING');
  }

  cleanUp(): void {
    if (this.state !== 'CREATED' && this.state !== 'NOT_RUNNING' && this.state !== 'ERROR') throw new IllegalState('running');
    this.cleanedUp += 1;
  }

  describe() {
    return this.topology.describe();
  }

  threads() {
    return [];
  }

  async offsets() {
    return { group: this.applicationId, consumers: [] };
  }

  async storeStatus() {
    return [];
  }

  timeline() {
    return [];
  }

  allMetadata() {
    return [];
  }

  metadataForStore() {
    return [];
  }

  keyQueryMetadata() {
    return undefined;
  }

  sourceTopicsForStore() {
    return undefined;
  }

  storePartitionCount() {
    return undefined;
  }

  hasStore() {
    return false;
  }

  isGlobalStore() {
    return false;
  }

  queryableStores() {
    return new Map();
  }

  queryableStore() {
    return undefined;
  }

  standbyReplicas() {
    return new Map();
  }

  workerStores() {
    return [];
  }
}

/** A factory that remembers every runtime it made, newest last. */
export function fakeRuntimes(options: { startFailure?: Error } = {}): { factory: RuntimeFactory; made: FakeRuntime[] } {
  const made: FakeRuntime[] = [];
  return {
    made,
    factory: (topology, config) => {
      const runtime = new FakeRuntime(topology, config);
      runtime.startFailure = options.startFailure;
      made.push(runtime);
      return runtime;
    },
  };
}
