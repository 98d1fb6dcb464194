/** The failover benchmark's printed figures: one block per run as it ends, and the table of all with issue 14's goals. */
import type { KillFigures } from './kill';
import type { NodePause, RollingFigures } from './rolling';

const seconds = (s: number | undefined): string => (s === undefined ? 'never' : `${s.toFixed(2)} s`);
const pause = (p: NodePause | undefined): string => (p === undefined ? 'none' : `${p.seconds.toFixed(2)} s (${p.label})`);
/** The same, with when it began: which restart it belongs to. */
const pauseAt = (p: NodePause | undefined): string => (p === undefined ? 'none' : `${p.seconds.toFixed(2)} s (${p.label}, from t=${p.at.toFixed(1)} s)`);

export function killBlock(f: KillFigures): string {
  return [
    `SIGKILL of ${f.killed}, num.standby.replicas=${f.standbys}, session.timeout.ms=${f.sessionTimeoutMs}: ${f.sampled} of its keys over partitions ${f.partitions.join(', ')}`,
    `  every sampled key answered with allow_stale   ${f.standbys > 0 ? `${seconds(f.everyStaleAnswer)} after the kill (${f.standbyAnswers} answers from a standby)` : 'not measured (no standby)'}`,
    `  every sampled key answered from an active     ${seconds(f.everyActiveAnswer)} after the kill`,
    `  first REBALANCING of a survivor               ${seconds(f.groupNoticed)} after the kill`,
    `  records restored by the promoted tasks        ${f.restored} of ${f.changelogs} in their changelogs (${f.held} held by their local copies when promoted)`,
  ].join('\n') + '\n';
}

const membership = (f: RollingFigures): string => (f.staticMembership ? 'static membership (group.instance.id)' : 'dynamic membership');

export function rollingBlock(f: RollingFigures): string {
  return [
    `rolling restart, ${membership(f)}, num.standby.replicas=${f.standbys}, session.timeout.ms=${f.sessionTimeoutMs}, ${f.rate} updates/s`,
    ...f.steps.map((s) => `  ${s.label}: SIGTERM at t=${s.at.toFixed(1)} s, to exit ${s.stopping.toFixed(2)} s, start to RUNNING ${s.starting.toFixed(2)} s`),
    `  on the nodes not being restarted (in the ${f.baseline.seconds} s before the restarts):`,
    `    longest pause of processing                 ${pauseAt(f.processing)}   (${pause(f.baseline.processing)})`,
    `    longest failing of a partition's gets       ${pauseAt(f.queries)}   (${pause(f.baseline.queries)})`,
    `    the same with allow_stale                   ${pauseAt(f.staleQueries)}   (${pause(f.baseline.staleQueries)})`,
    `    REBALANCING stretches                       ${f.rebalancings}, longest ${pauseAt(f.longestRebalancing)}`,
    `    failed gets / with allow_stale              ${f.failedQueries} / ${f.failedStaleQueries}`,
    ...(f.firstStaleFailure !== undefined ? [`    first failed get with allow_stale: ${f.firstStaleFailure}`] : []),
    ...(f.failedProduces > 0 ? [`  failed produces: ${f.failedProduces}`] : []),
  ].join('\n') + '\n';
}

export function summary(keys: number, kills: readonly KillFigures[], rollings: readonly RollingFigures[], loads: readonly string[]): string {
  const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const byStandbys = (n: number) => kills.find((k) => k.standbys === n);
  const [none, one] = [byStandbys(0), byStandbys(1)];
  const cell = (f: KillFigures | undefined, pick: (f: KillFigures) => string) => (f === undefined ? '-' : pick(f));
  const lines = [
    '',
    `failover, 3 nodes, ${keys} keys (load average during the runs: ${loads.join(', ')})`,
    row(['SIGKILL of one node', '0 standbys', '1 standby', 'goal (issue 14)']),
    row(['---', '---', '---', '---']),
    row(['every sampled key answers with allow_stale', '-', cell(one, (f) => seconds(f.everyStaleAnswer)), 'within 2 s of the kill']),
    row(['every sampled key answers from an active', cell(none, (f) => seconds(f.everyActiveAnswer)), cell(one, (f) => seconds(f.everyActiveAnswer)), 'within 10 s with a standby']),
    row(['first REBALANCING of a survivor', cell(none, (f) => seconds(f.groupNoticed)), cell(one, (f) => seconds(f.groupNoticed)), '']),
    row(['records restored on promotion', cell(none, (f) => `${f.restored} of ${f.changelogs}`), cell(one, (f) => `${f.restored} of ${f.changelogs}`), 'fewer than 1 % with a standby']),
  ];
  if (rollings.length > 0) {
    lines.push('', row(['rolling restart, the other nodes', ...rollings.map(membership), 'goal (issue 14)']), row(['---', ...rollings.map(() => '---'), '---']));
    const add = (label: string, pick: (f: RollingFigures) => string, goal = '') => lines.push(row([label, ...rollings.map(pick), goal]));
    add('longest pause of processing', (f) => pause(f.processing), 'static: none beyond the usual');
    add('REBALANCING stretches (longest)', (f) => `${f.rebalancings} (${pause(f.longestRebalancing)})`, 'static: 0');
    add('longest failing of a partition\'s gets', (f) => pause(f.queries));
    add('the same with allow_stale', (f) => pause(f.staleQueries));
    add('failed gets / with allow_stale', (f) => `${f.failedQueries} / ${f.failedStaleQueries}`);
    add('restart of a node, longest (SIGTERM to RUNNING)', (f) => seconds(Math.max(...f.steps.map((s) => s.stopping + s.starting))));
  }
  return lines.join('\n') + '\n';
}
