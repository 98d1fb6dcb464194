/**
 * An instance's tasks and stores, from `/status` and `/stores`: each stream thread with its tasks (active, standby,
 * warm-up), and each store partition with its changelog lag, its restore under way or its last one, and its size on
 * disk; and the node's memory budget, part by part, from the instance's metrics (`sluice-memory-metrics`).
 */

import { api, streamPath, type Instance, type MetricGroup, type StorePartitionStatus, type StreamsStatus } from '../api';
import { ErrorNote, Section, StateBadge, usePoll } from '../components/common';

/** Often enough to see a restore move. */
const POLL_MS = 1000;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

const count = (n: number) => n.toLocaleString('en-US');

type Task = StreamsStatus['threads'][number]['active_tasks'][number];

function TaskRows({ tasks, kind }: { tasks: Task[]; kind: string }) {
  return (
    <>
      {tasks.map((task) => (
        <tr key={`${kind}-${task.task_id}`} data-testid="task" data-kind={kind}>
          <td class="mono">{task.task_id}</td>
          <td data-label="Kind">{kind}</td>
          <td data-label="Partitions" class="mono">
            {task.topic_partitions.map((tp) => `${tp.topic}-${tp.partition}`).join(' ')}
          </td>
          <td data-label="Lag">{task.lag === undefined ? null : task.lag < 0 ? <span class="muted">not read yet</span> : count(task.lag)}</td>
        </tr>
      ))}
    </>
  );
}

function Threads({ status, warmups }: { status: StreamsStatus | undefined; warmups: boolean }) {
  const threads = status?.threads ?? [];
  return (
    <Section title="Threads and tasks">
      {threads.length === 0 ? <p class="muted">No stream thread (not running).</p> : null}
      {threads.map((thread) => (
        <div key={thread.name} class="thread" data-testid="thread" data-name={thread.name}>
          <h3>
            <span class="mono">{thread.name}</span> <StateBadge state={thread.state} />
          </h3>
          <div class="scroll-x">
            <table class="stack">
              <thead>
                <tr>
                  <th>Task</th>
                  <th>Kind</th>
                  <th>Partitions</th>
                  <th>Lag</th>
                </tr>
              </thead>
              <tbody>
                <TaskRows tasks={thread.active_tasks} kind="active" />
                <TaskRows tasks={thread.standby_tasks} kind={warmups ? 'warm-up' : 'standby'} />
              </tbody>
            </table>
          </div>
          {thread.active_tasks.length + thread.standby_tasks.length === 0 ? <p class="muted">No task assigned.</p> : null}
        </div>
      ))}
    </Section>
  );
}

/** A restore under way with how far it got, else the last one; "—" when the store was never restored here. */
function Restoration({ store }: { store: StorePartitionStatus }) {
  const restoring = store.restoring;
  if (restoring !== undefined) {
    const end = restoring.ending_offset ?? store.log_end_offset;
    const done = Math.max(0, store.current_offset - restoring.starting_offset);
    const total = Math.max(0, end - restoring.starting_offset);
    const percent = total === 0 ? 0 : Math.min(100, Math.floor((done / total) * 100));
    return (
      <span class="restoring" data-testid="restore-progress" data-done={done} data-total={total}>
        <progress max={100} value={percent} /> restoring {percent}% ({count(done)} of {count(total)})
      </span>
    );
  }
  const last = store.last_restoration;
  if (last === undefined) return <span class="muted">—</span>;
  return (
    <span data-testid="last-restoration">
      {count(last.total_restored)} records in {formatDuration(last.duration_ms)}
    </span>
  );
}

function Stores({ stores }: { stores: StorePartitionStatus[] }) {
  return (
    <Section title="Stores">
      {stores.length === 0 ? <p class="muted">No store partition on this node.</p> : null}
      <div class="scroll-x">
        <table data-testid="stores" class="stack">
          <thead>
            <tr>
              <th>Store</th>
              <th>Partition</th>
              <th>Changelog lag</th>
              <th>Restoration</th>
              <th>On disk</th>
            </tr>
          </thead>
          <tbody>
            {stores.map((store) => (
              <tr key={`${store.store}-${store.partition}`} data-testid="store-row" data-store={store.store} data-partition={store.partition}>
                <td class="mono">{store.store}</td>
                <td data-label="Partition">{store.partition}</td>
                <td data-label="Changelog lag" title={store.changelog ?? 'no changelog'}>{store.lag < 0 ? <span class="muted">—</span> : count(store.lag)}</td>
                <td data-label="Restoration">
                  <Restoration store={store} />
                </td>
                <td data-label="On disk">{store.size_bytes === undefined ? <span class="muted">in memory</span> : formatBytes(store.size_bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

const MEMORY_PARTS: Record<string, string> = {
  total: 'Resident (not file-backed)',
  heap: 'V8 heap',
  'record-cache': 'Record caches',
  'producer-buffer': 'Producer buffers',
  fetch: 'Fetches (at most)',
};

/** Each part of the node's memory budget: what it holds against its bound. */
function Memory({ groups }: { groups: MetricGroup[] | undefined }) {
  const metrics = groups?.find((g) => g.name === 'sluice-memory-metrics')?.metrics ?? [];
  const value = (name: string, part: string) => metrics.find((m) => m.name === name && m.tags.part === part)?.value;
  const parts = Object.keys(MEMORY_PARTS).filter((part) => value('memory-budget-bytes', part) !== undefined);
  return (
    <Section title="Memory budget">
      {groups !== undefined && parts.length === 0 ? <p class="muted">This node has no memory budget (memory.budget, or a container's memory limit).</p> : null}
      {parts.length > 0 ? (
        <table data-testid="memory" class="stack">
          <thead>
            <tr>
              <th>Part</th>
              <th>In use</th>
              <th>Budget</th>
              <th>Share</th>
            </tr>
          </thead>
          <tbody>
            {parts.map((part) => {
              const used = value('memory-used-bytes', part) ?? 0;
              const budget = value('memory-budget-bytes', part) ?? 0;
              const percent = budget === 0 ? 0 : Math.round((used / budget) * 100);
              return (
                <tr key={part} data-testid="memory-part" data-part={part}>
                  <td>{MEMORY_PARTS[part]}</td>
                  <td data-label="In use">{formatBytes(used)}</td>
                  <td data-label="Budget">{formatBytes(budget)}</td>
                  <td data-label="Share">
                    <meter min={0} max={100} low={80} high={95} optimum={0} value={Math.min(percent, 100)} aria-label={`${MEMORY_PARTS[part]}: ${percent}% of its budget`} /> {percent}%
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}

export function TasksTab({ id, config }: { id: string; config: Instance['config'] }) {
  const status = usePoll(() => api.get<StreamsStatus>(`${streamPath(id)}/status`), POLL_MS, [id]);
  const stores = usePoll(() => api.get<StorePartitionStatus[]>(`${streamPath(id)}/stores`), POLL_MS, [id]);
  const metrics = usePoll(() => api.get<MetricGroup[]>(`${streamPath(id)}/metrics`), POLL_MS * 5, [id]);
  // Warm-up replicas (KIP-441) run as standbys: with no standby replicas configured, every standby is one.
  const warmups = Number(config['num.standby.replicas'] ?? 0) === 0;
  return (
    <>
      <ErrorNote error={status.error ?? stores.error} />
      <Threads status={status.data} warmups={warmups} />
      <Stores stores={stores.data ?? []} />
      <Memory groups={metrics.data} />
    </>
  );
}
