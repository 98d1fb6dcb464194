/**
 * The side panel of one node of the topology graph: what it is, where it stands, its stores and topics, the graph's
 * live figures of it in full, and the metrics the node reports for it (polled while the panel is open).
 */

import { Fragment, type Ref } from 'preact';
import { ApiError, api, streamPath, type MetricGroup } from '../api';
import { usePoll } from './common';
import { bytesText, msText, percentText, rateText, type Reading } from './topology-figures';
import type { InternalKind, NodeFacts } from './topology-layout';

const METRICS_INTERVAL_MS = 2000;

const TYPE: Record<NodeFacts['kind'], string> = {
  SOURCE: 'Source',
  PROCESSOR: 'Processor',
  SINK: 'Sink',
  topic: 'Topic',
  'internal-topic': 'Internal topic',
  store: 'State store',
};

const INTERNAL: Record<InternalKind, string> = {
  repartition: 'repartition topic',
  'fk-subscription': 'foreign-key join subscription topic',
  'fk-response': 'foreign-key join response topic',
};

type Row = { task: string; name: string; value: number | string | null };

/**
 * The metrics tagged with this node: a processor node's in stream-processor-node-metrics (by processor-node-id: its
 * `process-total` on every node, latencies at the sources), and a store's in stream-state-metrics (by its
 * `<scope>-state-id` tag).
 */
function metricsQuery(id: string, facts: NodeFacts): (() => Promise<Row[]>) | undefined {
  const pick = (group: string, matches: (tags: Record<string, string>) => boolean) => async () => {
    let groups: MetricGroup[];
    try {
      groups = await api.get<MetricGroup[]>(`${streamPath(id)}/metrics/group/${group}`);
    } catch (error) {
      // The API answers 404 for a group with no metric yet.
      if (error instanceof ApiError && error.status === 404) return [];
      throw error;
    }
    return groups
      .flatMap((g) => g.metrics)
      .filter((m) => matches(m.tags))
      .map((m) => ({ task: m.tags['task-id'] ?? '', name: m.name, value: m.value }))
      .sort((a, b) => a.task.localeCompare(b.task) || a.name.localeCompare(b.name));
  };
  if (facts.kind === 'store') return pick('stream-state-metrics', (tags) => Object.entries(tags).some(([k, v]) => k.endsWith('-state-id') && v === facts.name));
  if (facts.node !== undefined) return pick('stream-processor-node-metrics', (tags) => tags['processor-node-id'] === facts.name);
  return undefined;
}

/** Kafka Streams' latencies are in milliseconds. */
function shown(row: Row): string {
  if (typeof row.value !== 'number') return row.value ?? '—';
  const number = Number.isInteger(row.value) ? String(row.value) : row.value.toFixed(3);
  return row.name.includes('-latency-') ? `${number} ms` : number;
}

function Metrics({ id, facts }: { id: string; facts: NodeFacts }) {
  const query = metricsQuery(id, facts);
  const polled = usePoll(query ?? (async () => []), query ? METRICS_INTERVAL_MS : 0, [id, facts.kind, facts.name]);
  if (query === undefined) return null;
  const rows = polled.data ?? [];
  return (
    <>
      <h4>Metrics</h4>
      {polled.error ? <p class="error">{polled.error instanceof Error ? polled.error.message : String(polled.error)}</p> : null}
      {rows.length === 0 ? (
        <p class="muted" data-testid="panel-no-metrics">
          {polled.data === undefined
            ? 'Loading…'
            : facts.kind === 'store'
              ? 'None yet: the store reports once a task of this node has opened it.'
              : facts.kind === 'SOURCE'
                ? 'None yet: the source reports once it has processed a record on this node.'
                : 'None yet: the node reports once a task of it runs on this node.'}
        </p>
      ) : (
        <table class="panel-metrics" data-testid="panel-metrics">
          <thead>
            <tr>
              <th>Task</th>
              <th>Metric</th>
              <th>Value</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.task}/${row.name}`}>
                <td>{row.task}</td>
                <td class="mono">{row.name}</td>
                <td>{shown(row)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/**
 * The graph's live figures of this node in full (the graph reads them; the panel reads nothing more for them): what
 * the short line under the node abbreviates, with the latency's maximum beside its average.
 */
function LiveFigures({ facts, rate, reading }: { facts: NodeFacts; rate: number | undefined; reading: Reading | undefined }) {
  const rows: [string, string][] = [];
  if (facts.node !== undefined) {
    const figures = reading?.nodes.get(facts.name);
    if (rate !== undefined) rows.push(['Records per second', rateText(rate).replace('/s', '')]);
    if (figures?.latencyAvgMs !== undefined) rows.push(['End-to-end latency', `${msText(figures.latencyAvgMs)} on average, ${msText(figures.latencyMaxMs ?? figures.latencyAvgMs)} at most`]);
    if (figures !== undefined) rows.push(['Records failed on', String(figures.failed)]);
  } else if (facts.kind === 'store') {
    const figures = reading?.stores.get(facts.name);
    if (figures?.keys !== undefined) rows.push(['Keys', figures.keys.toLocaleString('en')]);
    if (figures?.bytes !== undefined) rows.push(['On disk', `${bytesText(figures.bytes)} (${figures.bytes.toLocaleString('en')} bytes)`]);
    if (figures?.hitRatio !== undefined) rows.push(['Cache hit ratio', percentText(figures.hitRatio)]);
  } else if (facts.internal !== undefined) {
    const lag = reading?.lags.get(facts.name);
    if (lag !== undefined) rows.push(["Lag of this node's readers", `${lag.toLocaleString('en')} records`]);
  }
  if (rows.length === 0) return null;
  return (
    <>
      <h4>Now</h4>
      <dl data-testid="panel-live">
        {rows.map(([term, value]) => (
          <Fragment key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </Fragment>
        ))}
      </dl>
    </>
  );
}

const list = (names: readonly string[], none = 'none') => (names.length === 0 ? <span class="muted">{none}</span> : names.map((n) => <div key={n}>{n}</div>));

export function NodePanel({
  id,
  facts,
  groupLabel,
  onClose,
  panelRef,
  height,
  rate,
  reading,
}: {
  id: string;
  facts: NodeFacts;
  /** The graph's live figures. */
  rate: number | undefined;
  reading: Reading | undefined;
  groupLabel: string | undefined;
  onClose: () => void;
  panelRef: Ref<HTMLElement>;
  /** The graph's: beside it, the panel scrolls rather than stretch the row. */
  height: number;
}) {
  const node = facts.node;
  const topics = node === undefined ? [] : [...(node.topics ?? []).map((t) => `reads ${t}`), ...(node.topic !== undefined ? [`writes ${node.topic}`] : [])];
  return (
    <aside id="graph-panel" class="graph-panel" role="region" aria-labelledby="graph-panel-title" tabIndex={-1} ref={panelRef} style={{ maxHeight: `${height}px` }} data-testid="graph-panel">
      <header>
        <h3 id="graph-panel-title" class="mono">
          {facts.name}
        </h3>
        <button type="button" class="close" onClick={onClose} aria-label="Close the node's details" title="Close (Esc)">
          ×
        </button>
      </header>
      <dl>
        <dt>Type</dt>
        <dd data-testid="panel-type">
          {TYPE[facts.kind]}
          {facts.internal ? `: ${INTERNAL[facts.internal]}` : ''}
        </dd>
        {groupLabel ? (
          <>
            <dt>In</dt>
            <dd>{groupLabel}</dd>
          </>
        ) : null}
        {node !== undefined ? (
          <>
            <dt>Stores</dt>
            <dd data-testid="panel-stores" class="mono">
              {list(node.stores ?? [])}
            </dd>
            <dt>Topics</dt>
            <dd data-testid="panel-topics" class="mono">
              {list(topics)}
            </dd>
            <dt>From</dt>
            <dd class="mono">{list(node.predecessors, node.type === 'SOURCE' ? 'its topics' : 'none')}</dd>
            <dt>To</dt>
            <dd class="mono">{list(node.successors, node.type === 'SINK' ? 'its topic' : 'none')}</dd>
          </>
        ) : facts.kind === 'store' ? (
          <>
            <dt>Used by</dt>
            <dd data-testid="panel-processors" class="mono">
              {list(facts.readers)}
            </dd>
          </>
        ) : (
          <>
            {facts.internal ? (
              <>
                <dt>Name in Kafka</dt>
                <dd class="mono">{`${id}-${facts.name}`}</dd>
              </>
            ) : null}
            <dt>Written by</dt>
            <dd data-testid="panel-writers" class="mono">
              {list(facts.writers, 'no sink of this topology')}
            </dd>
            <dt>Read by</dt>
            <dd data-testid="panel-readers" class="mono">
              {list(facts.readers, 'no source of this topology')}
            </dd>
          </>
        )}
      </dl>
      <LiveFigures facts={facts} rate={rate} reading={reading} />
      <Metrics id={id} facts={facts} />
    </aside>
  );
}
