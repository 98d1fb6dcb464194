/**
 * An instance's lag over time, from the history the node keeps (`/offsets/history`): the group's total and each
 * topic's, in records and in time, over the last 15 minutes, hour or day. The node samples every 10 s whether a page
 * is open or not, so the chart is whole as soon as it is shown.
 */

import { useState } from 'preact/hooks';
import { api, streamPath, type LagHistory, type LagRange } from '../api';
import { TimeChart, type TimeSeries } from '../components/charts';
import { ErrorNote, Section, usePoll } from '../components/common';
import { formatDuration } from './instance-tasks';

const RANGES: { range: LagRange; label: string; ms: number }[] = [
  { range: '15m', label: '15 min', ms: 15 * 60_000 },
  { range: '1h', label: '1 h', ms: 60 * 60_000 },
  { range: '24h', label: '24 h', ms: 24 * 60 * 60_000 },
];

/** The node samples every 10 s: polling faster would show nothing new. */
const POLL_MS = 10_000;

const records = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
const duration = (ms: number) => (ms === 0 ? '0' : formatDuration(Math.round(ms)));

export function LagTab({ id }: { id: string }) {
  const [range, setRange] = useState<LagRange>('1h');
  const history = usePoll(() => api.get<LagHistory>(`${streamPath(id)}/offsets/history?range=${range}`), POLL_MS, [id, range]);
  const data = history.data?.range === range ? history.data : undefined;
  const span = RANGES.find((r) => r.range === range)!;
  const to = Date.now();
  const series = (pick: 'lag' | 'time_lag_ms'): TimeSeries[] =>
    data === undefined
      ? []
      : [
          { name: `${data.group} (total)`, points: data.total.map((p) => [p.time, p[pick]] as [number, number | null]) },
          ...data.topics.map((t) => ({ name: t.topic, points: t.points.map((p) => [p.time, p[pick]] as [number, number | null]) })),
        ];
  const picker = (
    <div class="range-picker" role="group" aria-label="Range">
      {RANGES.map((r) => (
        <button key={r.range} aria-pressed={r.range === range} data-testid={`range-${r.range}`} onClick={() => setRange(r.range)}>
          {r.label}
        </button>
      ))}
    </div>
  );
  const empty = data !== undefined && data.total.length === 0;
  return (
    <>
      <Section title="Lag in records" actions={picker}>
        <ErrorNote error={history.error} />
        {empty ? <p class="muted">No sample yet: the node samples every 10 s while the instance runs.</p> : null}
        <TimeChart testId="lag-chart" series={series('lag')} from={to - span.ms} to={to} stepMs={data?.step_ms ?? 10_000} format={records} floor={4} />
        <p class="muted">
          Records behind the log end, per topic and for the group, on this node's partitions
          {range === '24h' ? '; per minute, its largest' : ''}.
        </p>
      </Section>
      <Section title="Lag in time">
        <TimeChart testId="lag-time-chart" series={series('time_lag_ms')} from={to - span.ms} to={to} stepMs={data?.step_ms ?? 10_000} format={duration} floor={20_000} />
        <p class="muted">How long ago the log end passed the consumer's position, the largest over the partitions, estimated from the end offsets' history.</p>
      </Section>
    </>
  );
}
