/**
 * A SIGKILL of one node and how soon its keys answer again on a survivor: a sample of its keys (spread over its
 * partitions) is queried round after round, with `allow_stale` (a standby may answer) and without (an active
 * must), each key until it has answered once with its value. Then the records the promoted tasks restored, from
 * the survivors' `GET .../stores` (`last_restoration`).
 */
import { performance } from 'node:perf_hooks';
import type { SetOptions } from '../../src/client';
import { keyOf, valueOf } from '../support/keyed-input';
import { sleep, until } from '../support/program';
import { activePartitions, keysOf, STORE, type ClusterNode, type ClusterSettings } from './cluster';
import { StateLog } from './state-log';

/** Queries in flight per round: a failing key costs at most its query_timeout_ms, not the whole round's. */
const CONCURRENCY = 8;
const QUERY_TIMEOUT_MS = 2000;
const ROUND_PAUSE_MS = 50;
const RESTORED_WITHIN_MS = 120_000;

export interface KillFigures {
  standbys: number;
  sessionTimeoutMs: number;
  killed: string;
  partitions: number[];
  sampled: number;
  /** Seconds from the SIGKILL; undefined when not measured (no standby) or never reached. */
  everyStaleAnswer: number | undefined;
  /** Of the stale answers, how many a standby gave. */
  standbyAnswers: number;
  everyActiveAnswer: number | undefined;
  /** The first REBALANCING of a survivor after the kill: when the group noticed. */
  groupNoticed: number | undefined;
  restored: number;
  changelogs: number;
  /** Changelog records the survivors' copies already held when promoted: a standby's, or a task's left from an earlier assignment. */
  held: number;
}

/** Kills the last node and measures on the first; `nodes` are loaded and their standbys caught up. */
export async function killOne(nodes: readonly ClusterNode[], settings: ClusterSettings, keys: number, sample: number): Promise<KillFigures> {
  const victim = nodes[nodes.length - 1]!;
  const survivors = nodes.slice(0, -1);
  const asked = survivors[0]!;
  const partitions = (await activePartitions(asked, settings)).get(victim.server) ?? [];
  if (partitions.length === 0) throw new Error(`${victim.label} holds no partition`);
  const sampled = keysOf(partitions, keys, sample);
  const logs = survivors.map((node) => new StateLog(node, settings.applicationId));
  // Each log's first event (the state at connect) before the kill: a REBALANCING after it is the group's answer.
  await until('the survivors\' state streams', () => Promise.resolve(logs.every((log) => log.changes.length > 0)), (open) => open, 30_000);

  const killedAt = performance.now();
  await victim.end('SIGKILL');
  const since = (at: number | undefined) => (at === undefined ? undefined : (at - killedAt) / 1000);
  let standbyAnswers = 0;
  const stale =
    settings.standbys > 0
      ? answerAll(asked, settings, sampled, { allow_stale: true }, (standby) => (standbyAnswers += standby ? 1 : 0))
      : Promise.resolve(undefined);
  const [staleAt, activeAt] = await Promise.all([stale, answerAll(asked, settings, sampled, {}, () => undefined)]);
  const noticed = logs.flatMap((log) => log.rebalancingSince(killedAt)).map((r) => r.from);
  await Promise.all(logs.map((log) => log.stop()));
  const { restored, changelogs, held } = await restoredOn(survivors, settings, partitions);
  return {
    standbys: settings.standbys,
    sessionTimeoutMs: settings.sessionTimeoutMs,
    killed: victim.label,
    partitions,
    sampled: sampled.length,
    everyStaleAnswer: since(staleAt),
    standbyAnswers,
    everyActiveAnswer: since(activeAt),
    groupNoticed: since(noticed.length === 0 ? undefined : Math.min(...noticed)),
    restored,
    changelogs,
    held,
  };
}

/**
 * Queries the keys on `node` round after round until each has answered once with its value; returns when the last
 * did (performance.now()), or undefined if some never did within the session timeout and RESTORED_WITHIN_MS.
 */
async function answerAll(
  node: ClusterNode,
  settings: ClusterSettings,
  sampled: readonly number[],
  options: SetOptions,
  onAnswer: (standby: boolean) => void,
): Promise<number | undefined> {
  const deadline = performance.now() + settings.sessionTimeoutMs + RESTORED_WITHIN_MS;
  let pending = [...sampled];
  while (pending.length > 0 && performance.now() < deadline) {
    const answered = new Set<number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < pending.length) {
          const i = pending[next++]!;
          try {
            const answer = await node.client.query(settings.applicationId, STORE, {
              type: 'key_value',
              query: { get: { key: keyOf(i) } },
              set_options: { ...options, query_timeout_ms: QUERY_TIMEOUT_MS },
            });
            const part = answer.result.success[0];
            if (answer.status === 'SUCCESS' && part?.records[0]?.value === valueOf(i)) {
              answered.add(i);
              onAnswer(part.standby === true);
            }
          } catch {
            // A failed query is a key not answered yet.
          }
        }
      }),
    );
    pending = pending.filter((i) => !answered.has(i));
    if (pending.length > 0) await sleep(ROUND_PAUSE_MS);
  }
  return pending.length === 0 ? performance.now() : undefined;
}

/** What the survivors' tasks of `partitions` restored when they took them over, their changelogs' length, and what they held. */
async function restoredOn(
  survivors: readonly ClusterNode[],
  settings: ClusterSettings,
  partitions: readonly number[],
): Promise<{ restored: number; changelogs: number; held: number }> {
  const restorations = await until(
    `the restorations of partitions ${partitions.join(', ')}`,
    async () => (await Promise.all(survivors.map((node) => node.client.stores(settings.applicationId)))).flat(),
    (stores) => partitions.every((p) => stores.some((s) => s.store === STORE && s.partition === p && s.last_restoration !== undefined)),
    RESTORED_WITHIN_MS,
  );
  const promoted = restorations.filter((s) => s.store === STORE && partitions.includes(s.partition) && s.last_restoration !== undefined);
  return {
    restored: promoted.reduce((n, s) => n + s.last_restoration!.total_restored, 0),
    changelogs: promoted.reduce((n, s) => n + s.last_restoration!.ending_offset, 0),
    held: promoted.reduce((n, s) => n + s.last_restoration!.starting_offset, 0),
  };
}
