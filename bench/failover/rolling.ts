/**
 * A rolling restart of every node, one after the other as a StatefulSet rolls: SIGTERM, wait for the process to
 * end, start it again on the same state directory and ports, wait until its instance is RUNNING, next. Input keeps
 * coming at a steady rate (updates of existing keys, so the store keeps its size) and every node up is watched
 * (watchers.ts). The figures are the other nodes': the longest pause of their processing, the longest time their
 * queries of one partition's keys failed, and the REBALANCING stretches of their state, beside the same pauses over
 * a quiet window before the restarts.
 */
import { performance } from 'node:perf_hooks';
import type { KafkaClient } from '../../src/streams/kafka';
import { keyOf, valueOf } from '../support/keyed-input';
import { log, sleep } from '../support/program';
import { SteadyInput } from '../support/steady';
import type { ClusterNode, ClusterSettings } from './cluster';
import { StateLog } from './state-log';
import { NodeWatch } from './watchers';

/** The quiet window before the first restart, and the time watched after the last node is RUNNING again. */
const BASELINE_MS = 10_000;
const SETTLE_MS = 10_000;

export interface RestartStep {
  label: string;
  /** Its SIGTERM, in seconds from the first. */
  at: number;
  /** Seconds from SIGTERM to the process' end, and from its start to RUNNING. */
  stopping: number;
  starting: number;
}

/** The longest of a kind among the nodes watched, with the node's label (and the partition, for queries). */
export interface NodePause {
  seconds: number;
  label: string;
  /** When it began, in seconds from the first SIGTERM (negative: before it). */
  at: number;
}

export interface RollingFigures {
  staticMembership: boolean;
  sessionTimeoutMs: number;
  standbys: number;
  rate: number;
  steps: RestartStep[];
  /** The same pauses over the quiet window before the first restart. */
  baseline: { seconds: number; processing?: NodePause; queries?: NodePause; staleQueries?: NodePause };
  processing?: NodePause;
  queries?: NodePause;
  staleQueries?: NodePause;
  failedQueries: number;
  failedStaleQueries: number;
  /** Why the first failed get with allow_stale failed: a standby should have answered. */
  firstStaleFailure: string | undefined;
  /** REBALANCING stretches of the nodes not being restarted, and the longest (seconds; still open at the end: to then). */
  rebalancings: number;
  longestRebalancing?: NodePause;
  failedProduces: number;
}

export async function rollingRestart(nodes: readonly ClusterNode[], settings: ClusterSettings, kafka: KafkaClient, keys: number, rate: number): Promise<RollingFigures> {
  let failedProduces = 0;
  const input = new SteadyInput(
    kafka,
    settings.input,
    () => {
      const i = Math.floor(Math.random() * keys);
      return { key: keyOf(i), value: valueOf(i) };
    },
    () => (failedProduces += 1),
  );
  await input.start(rate);
  const watches = nodes.map((node) => new NodeWatch(node, settings.applicationId, keys));
  const states = nodes.map((node) => new StateLog(node, settings.applicationId));
  /** Each node's own restart, from SIGTERM to RUNNING: its REBALANCING then is its own. */
  const ownWindows = new Map<string, { from: number; to: number }>();
  const steps: RestartStep[] = [];
  const baselineFrom = performance.now();
  await sleep(BASELINE_MS);
  const rollingFrom = performance.now();
  try {
    for (const [i, node] of nodes.entries()) {
      log(`rolling restart: ${node.label}`);
      watches[i]!.away();
      const terminatedAt = performance.now();
      await node.end('SIGTERM');
      const endedAt = performance.now();
      await node.startAgain();
      await node.waitRunning(settings.applicationId);
      const runningAt = performance.now();
      watches[i]!.back();
      ownWindows.set(node.label, { from: terminatedAt, to: runningAt });
      steps.push({ label: node.label, at: (terminatedAt - rollingFrom) / 1000, stopping: (endedAt - terminatedAt) / 1000, starting: (runningAt - endedAt) / 1000 });
    }
    await sleep(SETTLE_MS);
  } finally {
    await input.stop();
    await Promise.all(watches.map((watch) => watch.stop()));
    await Promise.all(states.map((state) => state.stop()));
  }
  const rollingTo = performance.now();
  const longest = (pick: (watch: NodeWatch) => NodePause | undefined): NodePause | undefined =>
    watches.map(pick).reduce<NodePause | undefined>((a, b) => (b !== undefined && (a === undefined || b.seconds > a.seconds) ? b : a), undefined);
  const processing = (from: number, to: number) => (watch: NodeWatch): NodePause | undefined => {
    const pause = watch.processed.longestPause(from, to);
    return pause && { seconds: pause.ms / 1000, label: watch.node.label, at: (pause.from - rollingFrom) / 1000 };
  };
  const failing = (kind: 'queries' | 'staleQueries', from: number, to: number) => (watch: NodeWatch): NodePause | undefined => {
    const stretch = watch[kind].longest(from, to);
    return stretch && { seconds: (stretch.to - stretch.from) / 1000, label: `${watch.node.label}, partition ${stretch.partition}`, at: (stretch.from - rollingFrom) / 1000 };
  };
  const others = states.flatMap((state) =>
    state.rebalancingSince(rollingFrom).filter((stretch) => {
      const own = ownWindows.get(state.node.label);
      return own === undefined || stretch.from < own.from || stretch.from > own.to;
    }).map((stretch) => ({ label: state.node.label, seconds: ((stretch.to ?? rollingTo) - stretch.from) / 1000, at: (stretch.from - rollingFrom) / 1000 })),
  );
  return {
    staticMembership: settings.staticMembership,
    sessionTimeoutMs: settings.sessionTimeoutMs,
    standbys: settings.standbys,
    rate,
    steps,
    baseline: {
      seconds: BASELINE_MS / 1000,
      processing: longest(processing(baselineFrom, rollingFrom)),
      queries: longest(failing('queries', baselineFrom, rollingFrom)),
      staleQueries: longest(failing('staleQueries', baselineFrom, rollingFrom)),
    },
    processing: longest(processing(rollingFrom, rollingTo)),
    queries: longest(failing('queries', rollingFrom, rollingTo)),
    staleQueries: longest(failing('staleQueries', rollingFrom, rollingTo)),
    failedQueries: watches.reduce((n, w) => n + w.queries.count, 0),
    failedStaleQueries: watches.reduce((n, w) => n + w.staleQueries.count, 0),
    firstStaleFailure: watches.map((w) => w.staleQueries.first).find((first) => first !== undefined),
    rebalancings: others.length,
    longestRebalancing: others.reduce<NodePause | undefined>((a, b) => (a === undefined || b.seconds > a.seconds ? b : a), undefined),
    failedProduces,
  };
}
