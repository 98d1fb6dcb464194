/**
 * One instance: state (live), restart and stop for those who may, the topology graph, offsets and lag per partition
 * with a live chart, searchable metrics with sparklines, and the configuration (secrets come hidden from the API).
 */

import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, streamPath, subscribe, type ConsoleModel, type ConsumerOffsets, type Instance, type MetricGroup, type StateEvent, type TopologyDag } from '../api';
import { LineChart, Sparkline } from '../components/charts';
import { ErrorNote, Section, Since, StateBadge, usePoll } from '../components/common';
import { TopologyGraph } from '../components/topology-graph';

/** Samples kept for the charts: two minutes of lag at one sample every 2 s. */
const HISTORY = 60;
const OFFSETS_INTERVAL_MS = 2000;

function pushCapped<T>(list: T[], value: T): T[] {
  return [...list.slice(-(HISTORY - 1)), value];
}

function Actions({ id, onError }: { id: string; onError: (error: unknown) => void }) {
  const [asking, setAsking] = useState<'restart' | 'stop' | undefined>();
  const [cleanup, setCleanup] = useState(false);
  const confirm = () => {
    const action = asking === 'restart' ? api.post(`${streamPath(id)}/restart`) : api.delete(`${streamPath(id)}/stop`, { cleanup });
    setAsking(undefined);
    action.catch(onError);
  };
  return (
    <div class="actions">
      <button onClick={() => setAsking('restart')}>Restart</button>
      <button class="danger" onClick={() => setAsking('stop')}>
        Stop
      </button>
      {asking === undefined ? null : (
        <div class="modal" role="dialog" aria-modal="true" data-testid="confirm">
          <div class="modal-box">
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
          </div>
        </div>
      )}
    </div>
  );
}

function OffsetsSection({ id }: { id: string }) {
  const [history, setHistory] = useState<Record<string, number[]>>({});
  const [samples, setSamples] = useState(0);
  const polled = usePoll(() => api.get<ConsumerOffsets>(`${streamPath(id)}/offsets`), OFFSETS_INTERVAL_MS, [id]);
  const positions = (polled.data?.consumers ?? []).flatMap((c) => c.positions.map((p) => ({ ...p, thread: c.stream_thread })));
  positions.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  useEffect(() => {
    if (polled.data === undefined) return;
    setSamples((n) => Math.min(HISTORY, n + 1));
    setHistory((previous) => {
      const next: Record<string, number[]> = {};
      for (const p of positions) next[`${p.topic}-${p.partition}`] = pushCapped(previous[`${p.topic}-${p.partition}`] ?? [], Math.max(p.lag, 0));
      return next;
    });
  }, [polled.data]);
  return (
    <Section title="Consumer offsets and lag">
      <ErrorNote error={polled.error} />
      <LineChart testId="lag-chart" length={Math.max(samples, 2)} series={Object.entries(history).map(([name, values]) => ({ name, values }))} />
      <table data-testid="offsets">
        <thead>
          <tr>
            <th>Topic</th>
            <th>Partition</th>
            <th>Thread</th>
            <th>Consumed</th>
            <th>Committed</th>
            <th>Log end</th>
            <th>Lag</th>
          </tr>
        </thead>
        <tbody>
          {positions.map((p) => (
            <tr key={`${p.topic}-${p.partition}`} data-testid="lag-row" data-partition={p.partition}>
              <td>{p.topic}</td>
              <td>{p.partition}</td>
              <td class="muted">{p.thread}</td>
              <td>{p.consumed_offset}</td>
              <td>{p.committed_offset}</td>
              <td>{p.log_end_offset}</td>
              <td class="lag">{p.lag}</td>
            </tr>
          ))}
        </tbody>
      </table>
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
  const [search, setSearch] = useState('');
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
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const rows = groups.flatMap((group) =>
    group.metrics
      .map((m) => ({ key: metricKey(group.name, m), group: group.name, metric: m }))
      .filter((row) => words.every((w) => row.key.toLowerCase().includes(w))),
  );
  const toggle = (key: string) => setSelected((list) => (list.includes(key) ? list.filter((k) => k !== key) : [...list, key]));
  return (
    <Section title="Metrics">
      <input type="search" placeholder="Search by group, name or tag (e.g. thread process-rate)" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} data-testid="metric-search" />
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
              <th />
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

export function InstanceView({ id, model }: { id: string; model: ConsoleModel }) {
  const instance = usePoll(() => api.get<Instance>(streamPath(id)), 10_000, [id]);
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
  const current = state ?? (instance.data ? { state: instance.data.state.state, since: instance.data.state.since, previous: '' } : undefined);
  const graph = useMemo(() => (topology.data ? <TopologyGraph topology={topology.data} /> : null), [topology.data, id]);
  return (
    <div class="view">
      <ErrorNote error={instance.error} />
      <section class="card">
        <header>
          <h2>
            {id} {current ? <StateBadge state={current.state} testId="instance-state" /> : null}
          </h2>
          {model.canChange ? <Actions id={id} onError={setActionError} /> : null}
        </header>
        <ErrorNote error={actionError} />
        {instance.data ? (
          <p>
            {instance.data.name} <span class="muted">{instance.data.version}</span>
            {instance.data.description ? ` — ${instance.data.description}` : ''}
            {current ? (
              <>
                {' '}
                · {current.state} since <Since zoned={current.since} />
              </>
            ) : null}
          </p>
        ) : null}
        {instance.data?.exception ? <p class="error">Last failure: {instance.data.exception}</p> : null}
        <ol class="transitions" data-testid="transitions">
          {transitions.map((t, i) => (
            <li key={`${t.since}-${i}`}>
              {t.previous} → <strong>{t.state}</strong> <span class="muted">at {new Date(t.since.replace(/\[.*\]$/, '')).toLocaleTimeString()}</span>
            </li>
          ))}
        </ol>
      </section>
      <Section title="Topology">
        <ErrorNote error={topology.error} />
        {graph}
      </Section>
      <OffsetsSection id={id} />
      <MetricsSection id={id} />
      {instance.data ? <ConfigSection config={instance.data.config} /> : null}
    </div>
  );
}
