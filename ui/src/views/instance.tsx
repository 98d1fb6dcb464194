/**
 * One instance: state (live), restart and stop for those who may, a switcher to the node's other instances, and four
 * tabs: the overview (the topology graph, offsets and lag per partition, searchable metrics with sparklines, the
 * configuration, secrets hidden by the API), tasks and stores, lag over time, and the cluster's timeline of
 * rebalances and restores.
 */

import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, streamPath, subscribe, type ConsoleModel, type ConsumerOffsets, type Instance, type MetricGroup, type StateEvent, type TopologyDag } from '../api';
import { Sparkline } from '../components/charts';
import { ErrorNote, ScrollX, Section, Since, StateBadge, usePoll } from '../components/common';
import { Dialog } from '../components/dialog';
import { TopologyGraph } from '../components/topology-graph';
import { LagTab } from './instance-lag';
import { TasksTab } from './instance-tasks';
import { TimelineTab } from './instance-timeline';
import { NotFoundView } from './not-found';

/** Samples kept for the sparklines: a few minutes of metrics events. */
const HISTORY = 60;
const OFFSETS_INTERVAL_MS = 2000;

export const INSTANCE_TABS = [
  { tab: '', label: 'Overview' },
  { tab: 'tasks', label: 'Tasks and stores' },
  { tab: 'lag', label: 'Lag' },
  { tab: 'timeline', label: 'Timeline' },
] as const;

export const instanceHref = (id: string, tab: string) => `#/instance/${encodeURIComponent(id)}${tab === '' ? '' : `/${tab}`}`;

function pushCapped<T>(list: T[], value: T): T[] {
  return [...list.slice(-(HISTORY - 1)), value];
}

/** What an operator may do in each state: a stopped instance can only be started, any other restarted or stopped. */
function Actions({ id, state, onError }: { id: string; state: string; onError: (error: unknown) => void }) {
  const [asking, setAsking] = useState<'restart' | 'stop' | undefined>();
  const [cleanup, setCleanup] = useState(false);
  const confirm = () => {
    const action = asking === 'restart' ? api.post(`${streamPath(id)}/restart`) : api.delete(`${streamPath(id)}/stop`, { cleanup });
    setAsking(undefined);
    action.catch(onError);
  };
  if (state === 'STOPPED') {
    // The API starts a stopped instance by restarting it; nothing runs that a confirmation would protect.
    return (
      <div class="actions">
        <button onClick={() => api.post(`${streamPath(id)}/restart`).catch(onError)}>Start</button>
      </div>
    );
  }
  return (
    <div class="actions">
      <button onClick={() => setAsking('restart')}>Restart</button>
      <button class="danger" onClick={() => setAsking('stop')}>
        Stop
      </button>
      {asking === undefined ? null : (
        <Dialog label={`${asking === 'restart' ? 'Restart' : 'Stop'} ${id}`} onClose={() => setAsking(undefined)} testId="confirm">
          <p>
            {asking === 'restart' ? 'Restart' : 'Stop'} <strong>{id}</strong> on this node?
          </p>
          {asking === 'stop' ? (
            <label>
              <input type="checkbox" checked={cleanup} onChange={(e) => setCleanup((e.target as HTMLInputElement).checked)} /> Remove its local state
              (cleanup)
            </label>
          ) : null}
          <div class="buttons">
            <button onClick={() => setAsking(undefined)}>Cancel</button>
            <button class="danger" data-testid="confirm-yes" onClick={confirm}>
              {asking === 'restart' ? 'Restart' : 'Stop'}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

/** An offset the consumer does not have yet (none consumed or committed, the end not fetched) comes as -1. */
const offset = (value: number) => (value < 0 ? <span class="muted" title="none yet">—</span> : value);

function OffsetsSection({ id }: { id: string }) {
  const polled = usePoll(() => api.get<ConsumerOffsets>(`${streamPath(id)}/offsets`), OFFSETS_INTERVAL_MS, [id]);
  const threads = [...(polled.data?.consumers ?? [])]
    .map((c) => ({ thread: c.stream_thread, positions: [...c.positions].sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition) }))
    .filter((t) => t.positions.length > 0)
    .sort((a, b) => a.thread.localeCompare(b.thread));
  const positions = threads.flatMap((t) => t.positions);
  return (
    <Section title="Consumer offsets and lag" actions={<a href={instanceHref(id, 'lag')}>Lag over time</a>}>
      <ErrorNote error={polled.error} />
      <ScrollX label="Consumer offsets and lag">
        <table data-testid="offsets">
          <thead>
            <tr>
              <th>Topic</th>
              <th>Partition</th>
              <th>Consumed</th>
              <th>Committed</th>
              <th>Log end</th>
              <th>Lag</th>
            </tr>
          </thead>
          {/* One body per stream thread, headed by its name, rather than the name on every row. */}
          {threads.map((t) => (
            <tbody key={t.thread}>
              <tr class="group" data-testid="offsets-thread">
                <th colSpan={6} class="mono">
                  {t.thread}
                </th>
              </tr>
              {t.positions.map((p) => (
                <tr key={`${p.topic}-${p.partition}`} data-testid="lag-row" data-partition={p.partition}>
                  <td>{p.topic}</td>
                  <td>{p.partition}</td>
                  <td>{offset(p.consumed_offset)}</td>
                  <td>{offset(p.committed_offset)}</td>
                  <td>{offset(p.log_end_offset)}</td>
                  <td class="lag">{offset(p.lag)}</td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </ScrollX>
      {positions.length === 0 ? <p class="muted">No partition assigned to this node (not running, or rebalancing).</p> : null}
    </Section>
  );
}

const metricKey = (group: string, m: { name: string; tags: Record<string, string> }) =>
  `${group}/${m.name}{${Object.entries(m.tags)
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}}`;

function MetricsSection({ id }: { id: string }) {
  const [groups, setGroups] = useState<MetricGroup[]>([]);
  const [history, setHistory] = useState<Record<string, number[]>>({});
  const [filter, setFilter] = useState({ group: '', name: '', tag: '' });
  const [selected, setSelected] = useState<string[]>([]);
  useEffect(() => {
    const take = (next: MetricGroup[]) => {
      setGroups(next);
      setHistory((previous) => {
        const result: Record<string, number[]> = {};
        for (const group of next) for (const m of group.metrics) result[metricKey(group.name, m)] = pushCapped(previous[metricKey(group.name, m)] ?? [], m.value);
        return result;
      });
    };
    api.get<MetricGroup[]>(`${streamPath(id)}/metrics`).then(take, () => undefined);
    return subscribe(id, 'metrics', take);
  }, [id]);
  // Each filter looks at its own part: a name filter of "rate" does not match a tag that happens to hold "rate".
  const name = filter.name.toLowerCase();
  const tag = filter.tag.toLowerCase();
  const rows = groups
    .filter((group) => filter.group === '' || group.name === filter.group)
    .flatMap((group) =>
      group.metrics
        .filter((m) => m.name.toLowerCase().includes(name))
        .filter((m) => tag === '' || Object.entries(m.tags).some(([k, v]) => `${k}=${v}`.toLowerCase().includes(tag)))
        .map((m) => ({ key: metricKey(group.name, m), group: group.name, metric: m })),
    );
  const setPart = (part: keyof typeof filter) => (event: Event) => setFilter((f) => ({ ...f, [part]: (event.target as HTMLInputElement | HTMLSelectElement).value }));
  const toggle = (key: string) => setSelected((list) => (list.includes(key) ? list.filter((k) => k !== key) : [...list, key]));
  return (
    <Section title="Metrics">
      <div class="metric-filters">
        <label>
          Group
          <select value={filter.group} onChange={setPart('group')} data-testid="metric-group">
            <option value="">all groups</option>
            {groups.map((group) => (
              <option key={group.name} value={group.name}>
                {group.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input type="search" placeholder="e.g. process-rate" value={filter.name} onInput={setPart('name')} data-testid="metric-name" />
        </label>
        <label>
          Tag
          <input type="search" placeholder="e.g. thread-id=…-StreamThread-1" value={filter.tag} onInput={setPart('tag')} data-testid="metric-tag" />
        </label>
      </div>
      {selected.length > 0 ? (
        <ul class="selected-metrics" data-testid="selected-metrics">
          {selected.map((key) => (
            <li key={key}>
              <Sparkline values={history[key] ?? []} width={160} height={28} /> <span class="mono">{key}</span> = {(history[key] ?? []).slice(-1)[0] ?? '-'}{' '}
              <button class="link" onClick={() => toggle(key)}>
                remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">Tick metrics to follow them as sparklines.</p>
      )}
      <div class="scroll">
        <table data-testid="metrics">
          <thead>
            <tr>
              <th>
                <span class="visually-hidden">Follow</span>
              </th>
              <th>Group</th>
              <th>Name</th>
              <th>Tags</th>
              <th>Value</th>
              <th>Trend</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, 200).map((row) => (
              <tr key={row.key}>
                <td>
                  <input type="checkbox" checked={selected.includes(row.key)} onChange={() => toggle(row.key)} aria-label={`follow ${row.key}`} />
                </td>
                <td>{row.group}</td>
                <td title={row.metric.description}>{row.metric.name}</td>
                <td class="muted mono">
                  {Object.entries(row.metric.tags)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(' ')}
                </td>
                <td>{Number.isInteger(row.metric.value) ? row.metric.value : row.metric.value.toFixed(3)}</td>
                <td>
                  <Sparkline values={history[row.key] ?? []} width={80} height={16} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length > 200 ? <p class="muted">{rows.length - 200} more: narrow the search.</p> : null}
    </Section>
  );
}

function ConfigSection({ config }: { config: Instance['config'] }) {
  return (
    <Section title="Configuration">
      <table data-testid="config" class="config">
        <tbody>
          {Object.entries(config).map(([key, value]) => (
            <tr key={key}>
              <td class="mono">{key}</td>
              <td class={value === '[hidden]' ? 'muted mono' : 'mono'}>{String(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

/** An instance this node runs: its state stream and topology are asked for only once it is known to exist. */
/** The tabs of the instance, and a switcher to the same tab of another instance of the node. */
function InstanceNav({ id, tab, model }: { id: string; tab: string; model: ConsoleModel }) {
  const ids = model.applications.map((a) => a.id);
  return (
    <nav class="tabs" aria-label="Instance">
      {INSTANCE_TABS.map((t) => (
        <a key={t.tab} href={instanceHref(id, t.tab)} class={t.tab === tab ? 'active' : ''} aria-current={t.tab === tab ? 'page' : undefined}>
          {t.label}
        </a>
      ))}
      <label class="switcher">
        Instance
        <select data-testid="instance-switcher" value={id} onChange={(e) => (location.hash = instanceHref((e.target as HTMLSelectElement).value, tab))}>
          {(ids.includes(id) ? ids : [id, ...ids]).map((other) => (
            <option key={other} value={other}>
              {other}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}

function InstanceDetails({ id, tab, model, instance, error }: { id: string; tab: string; model: ConsoleModel; instance: Instance; error: unknown }) {
  const topology = usePoll(() => api.get<TopologyDag>(`/api/v1/applications/${encodeURIComponent(id)}/topology`), 0, [id]);
  const [state, setState] = useState<StateEvent | undefined>();
  const [transitions, setTransitions] = useState<StateEvent[]>([]);
  const [actionError, setActionError] = useState<unknown>();
  useEffect(() => {
    setTransitions([]);
    return subscribe(id, 'state', (event) => {
      setState(event);
      setTransitions((list) => [event, ...list].slice(0, 12));
    });
  }, [id]);
  const current = state ?? { state: instance.state.state, since: instance.state.since, previous: '' };
  const graph = useMemo(() => (topology.data && tab === '' ? <TopologyGraph topology={topology.data} id={id} /> : null), [topology.data, id, tab]);
  return (
    <div class="view">
      <ErrorNote error={error} />
      <section class="card">
        <header>
          <h1>
            {id} <StateBadge state={current.state} testId="instance-state" />
          </h1>
          {model.canChange ? <Actions id={id} state={current.state} onError={setActionError} /> : null}
        </header>
        <ErrorNote error={actionError} />
        <p>
          {instance.name} <span class="muted">{instance.version}</span>
          {instance.description ? ` — ${instance.description}` : ''} · {current.state} since <Since zoned={current.since} />
        </p>
        {instance.exception ? <p class="error">Last failure: {instance.exception}</p> : null}
        <ol class="transitions" data-testid="transitions">
          {transitions.map((t, i) => (
            <li key={`${t.since}-${i}`}>
              {t.previous} → <strong>{t.state}</strong> <span class="muted">at {new Date(t.since.replace(/\[.*\]$/, '')).toLocaleTimeString()}</span>
            </li>
          ))}
        </ol>
      </section>
      <InstanceNav id={id} tab={tab} model={model} />
      {tab === 'tasks' ? (
        <TasksTab id={id} config={instance.config} />
      ) : tab === 'lag' ? (
        <LagTab id={id} />
      ) : tab === 'timeline' ? (
        <TimelineTab id={id} />
      ) : (
        <>
          <Section title="Topology">
            <ErrorNote error={topology.error} />
            {graph}
          </Section>
          <OffsetsSection id={id} />
          <MetricsSection id={id} />
          <ConfigSection config={instance.config} />
        </>
      )}
    </div>
  );
}

export function InstanceView({ id, tab, model }: { id: string; tab: string; model: ConsoleModel }) {
  const instance = usePoll(() => api.get<Instance>(streamPath(id)), 10_000, [id]);
  if (!INSTANCE_TABS.some((t) => t.tab === tab)) return <NotFoundView what={`An instance has no tab ${tab}.`} />;
  if (instance.data !== undefined) return <InstanceDetails id={id} tab={tab} model={model} instance={instance.data} error={instance.error} />;
  if (instance.error instanceof ApiError && instance.error.status === 404) return <NotFoundView what={`This node runs no instance ${id}.`} />;
  return <ErrorNote error={instance.error} />;
}
