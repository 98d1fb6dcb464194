/**
 * One application instance of the process across its runtimes: a restart replaces the `StreamsInstance` (same
 * topology, same configuration), a stop through the API leaves it listed as `STOPPED`. Lifecycle actions run one
 * after the other; events of the current runtime are forwarded to subscribers, who thus see every restart.
 */

import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { StreamsEvents } from '../../streams/runtime/instance-view';
import type { ConfigValue } from '../../streams/runtime/streams-config';
import type { StateChange } from '../../streams/runtime/streams-state';
import type { TopologyDescription } from '../../streams/topology/description';
import type { Topology } from '../../streams/topology/topology';
import type { InstanceState, InstanceStateChange, LocalInstance, LocalInstanceEvents, StopOptions, TopologyInfo } from '../../server/context';
import type { RuntimeFactory, StreamsRuntime } from './runtime';
import type { TopologySource } from '../../streams/runtime/worker/topology-source';

/** The runtime's events a ManagedInstance hands on unchanged. */
const FORWARDED_EVENTS = ['rebalance', 'restore', 'topologyEvent', 'thread', 'timeline', 'memory'] as const satisfies ReadonlyArray<keyof LocalInstanceEvents & keyof StreamsEvents>;

export interface ManagedInstanceOptions {
  topologyInfo: TopologyInfo;
  topology: Topology;
  /** Where stream threads in workers build the topology from; none: every thread runs on the main thread. */
  topologySource?: TopologySource;
  description: string | null;
  /** The effective configuration, already validated. */
  config: Readonly<Record<string, ConfigValue>>;
  createRuntime: RuntimeFactory;
  logger: Logger;
  /** Longest wait for a runtime to close on stop or restart. */
  closeTimeoutMs: number;
}

export class ManagedInstance implements LocalInstance {
  readonly id: string;
  readonly topology: TopologyInfo;
  readonly description: string | null;
  readonly config: Readonly<Record<string, ConfigValue>>;
  readonly createdAt = Date.now();
  private runtime: StreamsRuntime;
  private stoppedSince: number | undefined;
  private startError: Error | undefined;
  private running = false;
  private change: InstanceStateChange;
  private readonly events = new EventEmitter();
  /** The lifecycle action under way (and those queued behind it), if any. */
  private tail: Promise<void> | undefined;
  private detach: () => void = () => undefined;

  constructor(private readonly options: ManagedInstanceOptions) {
    this.topology = options.topologyInfo;
    this.description = options.description;
    this.config = options.config;
    this.id = String(options.config['application.id']);
    // A listener per subscriber; a busy dashboard is not a leak.
    this.events.setMaxListeners(0);
    this.runtime = this.createRuntime();
    this.change = { state: 'CREATED', previous: 'CREATED', since: this.runtime.stateSince };
  }

  get state(): InstanceState {
    return this.stoppedSince !== undefined ? 'STOPPED' : this.runtime.state;
  }

  get stateSince(): number {
    return this.stoppedSince ?? this.runtime.stateSince;
  }

  get lastChange(): InstanceStateChange {
    return this.change;
  }

  get reachedRunning(): boolean {
    return this.running;
  }

  get lastError(): Error | undefined {
    return this.runtime.lastError ?? this.startError;
  }

  get view(): StreamsRuntime | undefined {
    return this.stoppedSince !== undefined ? undefined : this.runtime;
  }

  describe(): TopologyDescription {
    return this.options.topology.describe();
  }

  eventTypes(): readonly string[] {
    return this.options.topology.eventTypes();
  }

  on<E extends keyof LocalInstanceEvents>(event: E, listener: (payload: LocalInstanceEvents[E]) => void): () => void {
    this.events.on(event, listener);
    return () => this.events.off(event, listener);
  }

  /** Starts the first runtime in the background; a failure to start is kept as the instance's error. */
  start(): void {
    void this.run(async () => {
      void this.launch();
    });
  }

  /** Closes the current runtime and starts a new one; answers at once, the work goes on in the background. */
  restart(): void {
    this.run(async () => {
      await this.closeRuntime();
      const previous = this.state;
      this.stoppedSince = undefined;
      this.runtime = this.createRuntime();
      this.publishState({ state: 'CREATED', previous, since: this.runtime.stateSince });
      // Not awaited: a start can take as long as the broker does, and a stop must be able to follow.
      void this.launch();
    }).catch((error: unknown) => this.options.logger.error({ err: error, applicationId: this.id }, 'restart failed'));
  }

  /**
   * Closes the runtime (writing checkpoints; static members stay in the group unless `leaveGroup`), removes local
   * state if asked, and shows STOPPED.
   */
  stop(options: StopOptions): Promise<void> {
    return this.run(async () => {
      await this.closeRuntime(options.leaveGroup);
      if (options.cleanup) this.runtime.cleanUp();
      if (this.stoppedSince === undefined) {
        const previous = this.runtime.state;
        this.stoppedSince = Date.now();
        this.publishState({ state: 'STOPPED', previous, since: this.stoppedSince });
      }
    });
  }

  /** Closes the runtime for the process's shutdown; the instance is not marked STOPPED. */
  close(): Promise<void> {
    return this.run(() => this.closeRuntime());
  }

  /** Runs lifecycle actions one at a time; an action asked for while none runs starts at once (synchronously). */
  private run(action: () => Promise<void>): Promise<void> {
    const started = this.tail ? this.tail.then(action) : action();
    const tail: Promise<void> = started
      .catch(() => undefined)
      .then(() => {
        if (this.tail === tail) this.tail = undefined;
      });
    this.tail = tail;
    return started;
  }

  private createRuntime(): StreamsRuntime {
    this.detach();
    const runtime = this.options.createRuntime(this.options.topology, this.config, this.options.topologySource);
    const onState = (change: StateChange) => {
      if (change.state === 'RUNNING') this.running = true;
      this.publishState(change);
    };
    // Forwarded as they are; subscribers stay subscribed across restarts, which replace the runtime.
    const forwards = FORWARDED_EVENTS.map((name) => [name, (event: unknown) => this.events.emit(name, event)] as const);
    // The runtime logs its errors and moves to PENDING_ERROR/ERROR, which subscribers see as state events; this
    // listener only keeps an 'error' event without listeners from throwing.
    const onError = () => undefined;
    runtime.on('state', onState);
    for (const [name, forward] of forwards) runtime.on(name, forward);
    runtime.on('error', onError);
    this.detach = () => {
      runtime.off('state', onState);
      for (const [name, forward] of forwards) runtime.off(name, forward);
      runtime.off('error', onError);
    };
    this.running = false;
    this.startError = undefined;
    return runtime;
  }

  private async launch(): Promise<void> {
    const runtime = this.runtime;
    try {
      await runtime.start();
    } catch (error) {
      if (runtime === this.runtime) this.startError = error instanceof Error ? error : new Error(String(error));
      this.options.logger.error({ err: error, applicationId: this.id }, 'instance failed to start');
    }
  }

  private async closeRuntime(leaveGroup = false): Promise<void> {
    await this.runtime.close({ timeoutMs: this.options.closeTimeoutMs, leaveGroup });
  }

  private publishState(change: InstanceStateChange): void {
    this.change = change;
    this.events.emit('state', change);
  }
}
