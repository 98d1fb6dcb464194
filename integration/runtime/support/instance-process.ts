/**
 * A word-count StreamsInstance in an OS process of its own (instance-child.ts, run from the current sources through
 * ts-register.js), for tests that need instances which can be SIGKILLed. The test sees the instance's events as they
 * happen and asks it for its host map, key owners and store contents over IPC.
 */
import { fork, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RebalanceEvent, RestoreEvent, ThreadMetadata } from '../../../src/streams/runtime/instance-view';
import type { StreamsMetadata } from '../../../src/streams/runtime/streams-metadata';
import type { StateChange, StreamsState } from '../../../src/streams/runtime/streams-state';
import type { ChildEvent, ChildReply, ChildRequest, ChildSpec, KeyOwner } from './instance-protocol';

const CHILD_SCRIPT = path.join(__dirname, 'instance-child.ts');
const REGISTER = path.join(__dirname, 'ts-register.js');

/** Starts `command args` as spawn would, somewhere of the caller's choosing. */
export type ChildSpawner = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type RequestBody = WithoutId<ChildRequest>;

export class InstanceProcess {
  /** Every `state` event, in order. */
  readonly states: StateChange[] = [];
  readonly rebalances: RebalanceEvent[] = [];
  readonly restores: RestoreEvent[] = [];
  readonly errors: string[] = [];
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private exitCode: number | null | undefined;
  private exitSignal: NodeJS.Signals | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    readonly logFile: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        for (const { reject } of this.pending.values()) reject(new Error(`${name} exited (${signal ?? code}) before answering`));
        this.pending.clear();
        resolve();
      }),
    );
    child.on('message', (message: ChildEvent | ChildReply) => this.onMessage(message));
  }

  /**
   * Starts the child; the instance starts at once. `spawn`, when given, runs the child's node command line (a
   * network host's namespace, say) instead of a fork here; the IPC channel goes with it.
   */
  static start(spec: ChildSpec, workDir: string, spawner?: ChildSpawner): InstanceProcess {
    const logFile = path.join(workDir, `${spec.name}.log`);
    const log = fs.openSync(logFile, 'a');
    const options: SpawnOptions = {
      stdio: ['ignore', log, log, 'ipc'],
      env: { ...process.env, SLUICE_IT_CHILD_SPEC: JSON.stringify(spec), KAFKAJS_NO_PARTITIONER_WARNING: '1' },
    };
    const execArgv = ['--enable-source-maps', '-r', REGISTER];
    const child = spawner ? spawner(process.execPath, [...execArgv, CHILD_SCRIPT], options) : fork(CHILD_SCRIPT, [], { ...options, execArgv });
    fs.closeSync(log);
    return new InstanceProcess(spec.name, logFile, child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** The state of the last `state` event (CREATED before any). */
  get state(): StreamsState {
    return this.states[this.states.length - 1]?.state ?? 'CREATED';
  }

  metadata(): Promise<StreamsMetadata[]> {
    return this.request({ op: 'metadata' }) as Promise<StreamsMetadata[]>;
  }

  keyOwners(store: string, keys: string[]): Promise<KeyOwner[]> {
    return this.request({ op: 'keyOwners', store, keys }) as Promise<KeyOwner[]>;
  }

  /** Key → value over the store partitions this instance can query now (word → count for the word count). */
  async storeValues<V>(): Promise<Map<string, V>> {
    return new Map(Object.entries((await this.request({ op: 'storeValues' })) as Record<string, V>));
  }

  storeCounts(): Promise<Map<string, number>> {
    return this.storeValues<number>();
  }

  /** word → count over this instance's standby partitions of the `count` store. */
  async standbyCounts(): Promise<Map<string, number>> {
    return new Map(Object.entries((await this.request({ op: 'standbyValues' })) as Record<string, number>));
  }

  /** The instance's state and last error, asked now. */
  status(): Promise<{ state: StreamsState; lastError: string | null }> {
    return this.request({ op: 'state' }) as Promise<{ state: StreamsState; lastError: string | null }>;
  }

  /** The instance's threads as `/status` shows them (standby tasks under the first). */
  threads(): Promise<ThreadMetadata[]> {
    return this.request({ op: 'threads' }) as Promise<ThreadMetadata[]>;
  }

  /** SIGKILL: no commit, no checkpoint, no leave-group. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Closes the instance (commit, checkpoints, leave the group), then lets the process end; SIGKILL past `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      await this.request({ op: 'close', timeoutMs: graceMs - 2000 });
      await this.exited;
    } catch {
      // Exited before answering, or could not be asked: the timer or the kill below ends it.
      this.child.kill('SIGKILL');
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** How the process ended, for failure messages. */
  get exit(): string {
    return this.running ? 'running' : `exited with ${this.exitSignal ?? this.exitCode}`;
  }

  /** The last lines of the child's log. */
  tail(lines = 30): string {
    const text = fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8') : '';
    return text.split('\n').slice(-lines).join('\n');
  }

  private request(body: RequestBody): Promise<unknown> {
    if (!this.running) return Promise.reject(new Error(`${this.name} is not running (${this.exit})`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ ...body, id } as ChildRequest, (error) => {
        if (error) {
          this.pending.delete(id);
          reject(error);
        }
      });
    });
  }

  private onMessage(message: ChildEvent | ChildReply): void {
    if (message.kind === 'reply') {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!waiting) return;
      if (message.error !== undefined) waiting.reject(new Error(`${this.name}: ${message.error}`));
      else waiting.resolve(message.result);
      return;
    }
    switch (message.event) {
      case 'state':
        this.states.push(message.payload);
        break;
      case 'rebalance':
        this.rebalances.push(message.payload);
        break;
      case 'restore':
        this.restores.push(message.payload);
        break;
      case 'error':
        this.errors.push(message.payload.message);
        break;
    }
  }
}
