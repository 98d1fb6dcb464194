/** Charts drawn as plain SVG: a sparkline, and a line chart of several series over the same samples. */

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

export interface Series {
  name: string;
  values: number[];
}

/** Series aligned at their last sample; the y axis from 0 to the largest value. */
export function LineChart({ series, length, width = 640, height = 160, testId }: { series: Series[]; length: number; width?: number; height?: number; testId?: string }) {
  const { min, max } = scale(series.flatMap((s) => s.values));
  const plot = { left: 44, top: 8, width: width - 52, height: height - 24 };
  return (
    <div class="chart" data-testid={testId}>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
        <line x1={plot.left} y1={plot.top} x2={plot.left} y2={plot.top + plot.height} class="axis" />
        <line x1={plot.left} y1={plot.top + plot.height} x2={plot.left + plot.width} y2={plot.top + plot.height} class="axis" />
        <text x={plot.left - 6} y={plot.top + 10} class="tick" text-anchor="end">
          {max}
        </text>
        <text x={plot.left - 6} y={plot.top + plot.height} class="tick" text-anchor="end">
          {min}
        </text>
        <g transform={`translate(${plot.left},${plot.top})`}>
          {series.map((s, i) => (
            <polyline key={s.name} fill="none" stroke={COLORS[i % COLORS.length]} stroke-width="1.5" points={points(s.values, plot.width, plot.height, min, max, length)} />
          ))}
        </g>
      </svg>
      <ul class="legend">
        {series.map((s, i) => (
          <li key={s.name}>
            <span class="swatch" style={{ background: COLORS[i % COLORS.length] }} />
            {s.name}: {s.values[s.values.length - 1] ?? '-'}
          </li>
        ))}
      </ul>
    </div>
  );
}
