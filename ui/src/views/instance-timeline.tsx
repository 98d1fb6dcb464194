/**
 * The application's rebalances and restores across the cluster, newest first: the cluster's timeline
 * (`/timeline?scope=cluster`, every node's entries merged by the node asked) refetched every 10 s, and this node's
 * entries as they change (the `timeline` event), so that a restore under way moves every second. Each entry names its
 * node; the nodes that did not answer are named with why.
 */

import { useEffect, useState } from 'preact/hooks';
import { api, streamPath, subscribe, zonedToMillis, type Timeline, type TimelineEntry } from '../api';
import { ErrorNote, Section, usePoll } from '../components/common';
import { formatDuration } from './instance-tasks';

/** Other nodes' entries are as fresh as this: asking them costs a call to each. */
const CLUSTER_POLL_MS = 10_000;

type Rebalance = Extract<TimelineEntry, { type: 'rebalance' }>;
type Restore = Extract<TimelineEntry, { type: 'restore' }>;

/** An entry's number starts again when its instance restarts; its start time tells the two apart. */
const keyOf = (entry: TimelineEntry) => `${entry.process_id}/${entry.id}/${entry.started_at}`;
const count = (n: number) => n.toLocaleString('en-US');
const nodeOf = (entry: TimelineEntry) => entry.application_server ?? entry.process_id;

/**
 * Of two copies of one entry (the last refetch's, an event's), the later: ended beats running, and a longer run
 * beats a shorter one; so neither source takes an entry back in time.
 */
function later(a: TimelineEntry, b: TimelineEntry): TimelineEntry {
  if ((a.ended_at === null) !== (b.ended_at === null)) return a.ended_at === null ? b : a;
  return (b.duration_ms ?? -1) > (a.duration_ms ?? -1) ? b : a;
}

function when(zoned: string) {
  const at = new Date(zonedToMillis(zoned));
  const today = at.toDateString() === new Date().toDateString();
  return (
    <time dateTime={zoned.replace(/\[.*\]$/, '')} title={zoned}>
      {today ? at.toLocaleTimeString() : at.toLocaleString()}
    </time>
  );
}

function Tasks({ label, tasks }: { label: string; tasks: Rebalance['tasks_gained'] }) {
  if (tasks.length === 0) return null;
  return (
    <div class="tl-tasks" data-testid={`tasks-${label.toLowerCase()}`}>
      <span class="muted">{label}</span>
      {tasks.map((task) => (
        <span key={`${task.task_id}-${task.role}`} class={`chip ${task.role}`}>
          <span class="mono">{task.task_id}</span> {task.role === 'warmup' ? 'warm-up' : task.role}
          {task.restored_records === undefined ? null : ` · ${count(task.restored_records)} restored${task.restore_done === false ? ', restoring' : ''}`}
        </span>
      ))}
    </div>
  );
}

function RebalanceEntry({ entry }: { entry: Rebalance }) {
  return (
    <>
      <div class="tl-head">
        <span class="badge busy">Rebalance</span>
        <strong>{entry.generation === null ? 'joining' : `generation ${entry.generation}`}</strong>
        <span class="muted">{entry.duration_ms === null ? 'waiting for its assignment' : `took ${formatDuration(entry.duration_ms)}`}</span>
      </div>
      <ul class="tl-causes">
        {entry.causes.map((cause, i) => (
          <li key={i} data-testid="cause" data-type={cause.type}>
            {cause.description}
          </li>
        ))}
      </ul>
      <Tasks label="Gained" tasks={entry.tasks_gained} />
      <Tasks label="Lost" tasks={entry.tasks_lost} />
    </>
  );
}

function RestoreEntry({ entry }: { entry: Restore }) {
  const total = Math.max(0, entry.end_offset - entry.start_offset);
  const percent = total === 0 ? 100 : Math.min(100, Math.floor(((total - entry.remaining) / total) * 100));
  return (
    <>
      <div class="tl-head">
        <span class={`badge ${entry.done ? 'ok' : 'busy'}`}>{entry.done ? 'Restored' : 'Restoring'}</span>
        <strong>
          <span class="mono">{entry.store}</span> partition {entry.partition}
        </strong>
        <span class="muted">
          task <span class="mono">{entry.task_id}</span> from <span class="mono">{entry.topic}</span>
        </span>
      </div>
      {entry.done ? (
        <p>
          {count(entry.restored)} records in {formatDuration(entry.duration_ms)} ({count(Math.round(entry.rate))}/s)
        </p>
      ) : (
        <p class="restoring" data-testid="timeline-restore-progress">
          <progress max={100} value={percent} aria-label={`${entry.store} ${entry.partition} restored`} /> {percent}% · {count(entry.restored)} records ·{' '}
          {count(Math.round(entry.rate))}/s
          {entry.estimated_remaining_ms === null ? '' : ` · ~${formatDuration(entry.estimated_remaining_ms)} left`}
        </p>
      )}
    </>
  );
}

function Nodes({ timeline }: { timeline: Timeline | undefined }) {
  if (timeline?.success === undefined) return null;
  return (
    <div class="tl-nodes">
      <p data-testid="timeline-answered">
        <span class="muted">Nodes:</span>{' '}
        {timeline.success.map((node, i) => (
          <span key={node.server}>
            {i > 0 ? ', ' : ''}
            <span class="mono">{node.server}</span> <span class="muted">({node.remote ? '' : 'this node, '}{node.total} entries)</span>
          </span>
        ))}
      </p>
      {(timeline.failure ?? []).map((node) => (
        <p key={node.server} class="error" data-testid="timeline-failed" data-server={node.server}>
          <span class="mono">{node.server}</span> did not answer: {node.errors.map((e) => e.message).join('; ')}
        </p>
      ))}
    </div>
  );
}

export function TimelineTab({ id }: { id: string }) {
  const cluster = usePoll(() => api.get<Timeline>(`${streamPath(id)}/timeline?scope=cluster`), CLUSTER_POLL_MS, [id]);
  const [live, setLive] = useState<Record<string, TimelineEntry>>({});
  useEffect(() => {
    setLive({});
    return subscribe(id, 'timeline', (entry) => setLive((entries) => ({ ...entries, [keyOf(entry)]: entry })));
  }, [id]);
  const byKey = new Map<string, TimelineEntry>();
  for (const entry of cluster.data?.entries ?? []) byKey.set(keyOf(entry), entry);
  for (const [key, entry] of Object.entries(live)) {
    const known = byKey.get(key);
    byKey.set(key, known === undefined ? entry : later(known, entry));
  }
  const entries = [...byKey.values()].sort((a, b) => zonedToMillis(b.started_at) - zonedToMillis(a.started_at) || b.id - a.id);
  return (
    <Section title="Rebalances and restores, newest first">
      <ErrorNote error={cluster.error} />
      <Nodes timeline={cluster.data} />
      {cluster.data !== undefined && entries.length === 0 ? <p class="muted">No rebalance or restore yet on any node that answered.</p> : null}
      <ol class="timeline" data-testid="timeline">
        {entries.map((entry) => (
          <li key={keyOf(entry)} class={`tl-entry ${entry.type}`} data-testid="timeline-entry" data-type={entry.type} data-process={entry.process_id}>
            <div class="tl-when">
              {when(entry.started_at)} <span class="muted">on</span> <span class="mono">{nodeOf(entry)}</span>
            </div>
            {entry.type === 'rebalance' ? <RebalanceEntry entry={entry} /> : <RestoreEntry entry={entry} />}
          </li>
        ))}
      </ol>
    </Section>
  );
}
