/** Charts drawn as plain SVG: a sparkline, and series over a time axis. */

import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];

function scale(values: number[]): { min: number; max: number } {
  const min = Math.min(0, ...values);
  const max = Math.max(1, ...values);
  return { min, max };
}

function points(values: number[], width: number, height: number, min: number, max: number, length: number): string {
  const step = length > 1 ? width / (length - 1) : 0;
  const offset = length - values.length;
  return values.map((v, i) => `${((i + offset) * step).toFixed(1)},${(height - ((v - min) / (max - min)) * height).toFixed(1)}`).join(' ');
}

export function Sparkline({ values, width = 120, height = 24 }: { values: number[]; width?: number; height?: number }) {
  const { min, max } = scale(values);
  return (
    <svg class="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      <polyline fill="none" stroke={COLORS[0]} stroke-width="1.5" points={points(values, width, height, min, max, values.length)} />
    </svg>
  );
}

export interface TimeSeries {
  name: string;
  /** `[epoch ms, value]`, oldest first; null where the value is unknown. */
  points: [number, number | null][];
}

/** About `count` round steps over `span`: 1, 2 or 5 times a power of ten. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(count, 1);
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power;
}

const MINUTE = 60_000;
/** Steps of the time axis, in minutes: the first that leaves ticks room enough. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 240, 360].map((m) => m * MINUTE);

const clock = (t: number) => new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** The element's width, followed as it changes (a chart fills its card at any screen size). */
function useWidth(fallback: number): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(200, Math.floor(element.clientWidth))));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/**
 * Series over a time axis from `from` to `to`, as wide as its container. A line breaks where a value is unknown or
 * samples are missing (more than two steps apart: the instance was stopped).
 */
export function TimeChart({
  series,
  from,
  to,
  stepMs,
  format,
  floor,
  height = 200,
  testId,
}: {
  series: TimeSeries[];
  from: number;
  to: number;
  stepMs: number;
  format: (value: number) => string;
  /** The least the y axis reaches: whole steps of a unit (records, seconds) when the values are small. */
  floor: number;
  height?: number;
  testId?: string;
}) {
  const [ref, width] = useWidth(640);
  const plot = { left: 56, top: 10, width: width - 68, height: height - 34 };
  const values = series.flatMap((s) => s.points.map((p) => p[1] ?? 0));
  const top = Math.max(floor, ...values);
  const yStep = niceStep(top, 4);
  const yMax = yStep * Math.ceil(top / yStep);
  const x = (t: number) => plot.left + ((t - from) / (to - from)) * plot.width;
  const y = (v: number) => plot.top + plot.height - (v / yMax) * plot.height;
  const tickStep = TIME_STEPS.find((step) => ((to - from) / step) * 70 <= plot.width) ?? TIME_STEPS[TIME_STEPS.length - 1]!;
  const offset = new Date(from).getTimezoneOffset() * MINUTE;
  const xTicks: number[] = [];
  // Ticks on round local times (whole hours, quarter hours), not on the range's start.
  for (let t = Math.ceil((from - offset) / tickStep) * tickStep + offset; t <= to; t += tickStep) xTicks.push(t);
  const yTicks = Array.from({ length: Math.round(yMax / yStep) + 1 }, (_, i) => i * yStep);
  const lines = (points: TimeSeries['points']) => {
    const runs: [number, number][][] = [];
    let previous: number | undefined;
    for (const [t, v] of points) {
      if (v === null) {
        previous = undefined;
        continue;
      }
      if (previous === undefined || t - previous > 2 * stepMs) runs.push([]);
      runs[runs.length - 1]!.push([x(t), y(v)]);
      previous = t;
    }
    return runs;
  };
  return (
    <div class="chart time-chart" data-testid={testId} ref={ref}>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={series.map((s) => s.name).join(', ')}>
        {yTicks.map((v) => (
          <g key={`y${v}`}>
            <line x1={plot.left} x2={plot.left + plot.width} y1={y(v)} y2={y(v)} class="grid" />
            <text x={plot.left - 6} y={y(v) + 3} class="tick" text-anchor="end">
              {format(v)}
            </text>
          </g>
        ))}
        <g class="x-axis">
          <line x1={plot.left} y1={plot.top + plot.height} x2={plot.left + plot.width} y2={plot.top + plot.height} class="axis" />
          {xTicks.map((t) => (
            <text key={t} x={x(t)} y={height - 8} class="tick" text-anchor="middle" data-testid="x-tick">
              {clock(t)}
            </text>
          ))}
        </g>
        {series.map((s, i) =>
          lines(s.points).map((run, j) =>
            run.length === 1 ? (
              <circle key={`${s.name}-${j}`} cx={run[0]![0]} cy={run[0]![1]} r="2.5" fill={COLORS[i % COLORS.length]} />
            ) : (
              <polyline key={`${s.name}-${j}`} fill="none" stroke={COLORS[i % COLORS.length]} stroke-width={i === 0 ? 2.5 : 1.5} points={run.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')} />
            ),
          ),
        )}
      </svg>
      <ul class="legend">
        {series.map((s, i) => {
          const last = [...s.points].reverse().find((p) => p[1] !== null)?.[1];
          return (
            <li key={s.name} data-testid="series" data-name={s.name} data-points={s.points.length}>
              <span class="swatch" style={{ background: COLORS[i % COLORS.length] }} />
              {s.name}: <strong>{last === undefined || last === null ? '—' : format(last)}</strong>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
