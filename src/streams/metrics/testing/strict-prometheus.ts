/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests: it fails on anything a strict
 * scraper would reject or the format leaves ambiguous (a family's samples split apart, HELP or TYPE twice or after
 * the samples, duplicate labels or series, bad names, escapes or values).
 */

export interface ParsedSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

export interface ParsedFamily {
  help?: string;
  type?: string;
  readonly samples: ParsedSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

export function parsePrometheusStrictly(text: string): Map<string, ParsedFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, ParsedFamily>();
  const finished = new Set<string>();
  const series = new Set<string>();
  let current: string | undefined;

  const enter = (family: string): ParsedFamily => {
    if (family !== current) {
      if (finished.has(family)) throw new Error(`family ${family} is not contiguous`);
      if (current !== undefined) finished.add(current);
      current = family;
    }
    let parsed = families.get(family);
    if (parsed === undefined) {
      parsed = { samples: [] };
      families.set(family, parsed);
    }
    return parsed;
  };

  // Histogram and summary samples carry suffixes of their family's name.
  const familyOf = (sample: string): string => {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = sample.slice(0, -suffix.length);
      const type = families.get(base)?.type;
      if (sample.endsWith(suffix) && (type === 'histogram' || (type === 'summary' && suffix !== '_bucket'))) return base;
    }
    return sample;
  };

  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta !== null) {
      const [, keyword, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
      const family = enter(name);
      if (family.samples.length > 0) throw new Error(`${keyword} after samples of ${name}`);
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new Error(`second HELP for ${name}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) throw new Error(`bad escape in HELP of ${name}`);
        family.help = rest;
      } else {
        if (family.type !== undefined) throw new Error(`second TYPE for ${name}`);
        if (!TYPES.includes(rest)) throw new Error(`bad type: ${line}`);
        family.type = rest;
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([^{\s]+)(?:\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
    if (sample === null) throw new Error(`unreadable line: ${line}`);
    const [, name, labelText, valueText] = sample as unknown as [string, string, string | undefined, string];
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
    const labels = parseLabels(labelText ?? '', line);
    if (!FLOAT.test(valueText) && !['NaN', '+Inf', '-Inf'].includes(valueText)) throw new Error(`bad value: ${line}`);
    const key = name + JSON.stringify(Object.entries(labels).sort());
    if (series.has(key)) throw new Error(`duplicate series: ${line}`);
    series.add(key);
    enter(familyOf(name)).samples.push({ name, labels, value: Number(valueText.replace('Inf', 'Infinity')) });
  }
  return families;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const label = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
    if (label === null) throw new Error(`bad labels in: ${line}`);
    const [whole, name, escaped] = label as unknown as [string, string, string];
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`bad label name ${name} in: ${line}`);
    if (name in labels) throw new Error(`duplicate label ${name} in: ${line}`);
    labels[name] = escaped.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(whole.length);
  }
  return labels;
}
