/**
 * A node's instance states over time, from its `state` SSE stream (the first event is the state at connect). The
 * stream ends when its node goes; it is opened again until the log stops, so that a restarted node is followed too.
 */
import { performance } from 'node:perf_hooks';
import type { InstanceState } from '../../src/client';
import { sleep } from '../support/program';
import type { ClusterNode } from './cluster';

const RECONNECT_MS = 200;

export interface StateChange {
  /** performance.now() when it arrived. */
  at: number;
  state: InstanceState;
}

/** A stretch a node spent in REBALANCING, in performance.now() time; `to` is undefined while it lasts. */
export interface Rebalancing {
  from: number;
  to: number | undefined;
}

export class StateLog {
  readonly changes: StateChange[] = [];
  private readonly controller = new AbortController();
  private readonly following: Promise<void>;

  constructor(
    readonly node: ClusterNode,
    applicationId: string,
  ) {
    this.following = this.follow(applicationId);
  }

  /** Its REBALANCING stretches that began at or after `since`. */
  rebalancingSince(since: number): Rebalancing[] {
    const stretches: Rebalancing[] = [];
    this.changes.forEach((change, i) => {
      if (change.state !== 'REBALANCING' || change.at < since) return;
      if (this.changes[i - 1]?.state === 'REBALANCING') return;
      stretches.push({ from: change.at, to: this.changes.slice(i + 1).find((next) => next.state !== 'REBALANCING')?.at });
    });
    return stretches;
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.following;
  }

  private async follow(applicationId: string): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      try {
        for await (const event of this.node.client.events(applicationId, 'state', { signal })) {
          if (event.type === 'state') this.changes.push({ at: performance.now(), state: event.data.state });
        }
      } catch {
        // The node is down or restarting: open the stream again.
      }
      if (!signal.aborted) await sleep(RECONNECT_MS);
    }
  }
}
