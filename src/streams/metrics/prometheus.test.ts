import type { MetricSnapshot, MetricTags } from './metrics-registry';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, renderStreamsPrometheus } from './prometheus';

interface ParsedSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

interface ParsedFamily {
  help?: string;
  type?: string;
  readonly samples: ParsedSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A strict reader of the text exposition format 0.0.4: fails on anything a strict scraper would reject or that
 * the format leaves ambiguous (a family's samples split apart, HELP or TYPE twice or after the samples, duplicate
 * labels or series, bad names, escapes or values).
 */
function parseStrictly(text: string): Map<string, ParsedFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, ParsedFamily>();
  const finished = new Set<string>();
  const series = new Set<string>();
  let currentFamily: string | undefined;

  const enter = (family: string): ParsedFamily => {
    if (family !== currentFamily) {
      if (finished.has(family)) throw new Error(`family ${family} is not contiguous`);
      if (currentFamily !== undefined) finished.add(currentFamily);
      currentFamily = family;
    }
    let parsed = families.get(family);
    if (parsed === undefined) {
      parsed = { samples: [] };
      families.set(family, parsed);
    }
    return parsed;
  };

  const familyOf = (sampleName: string): string => {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = sampleName.slice(0, -suffix.length);
      const type = families.get(base)?.type;
      if (sampleName.endsWith(suffix) && (type === 'histogram' || (type === 'summary' && suffix !== '_bucket'))) {
        return base;
      }
    }
    return sampleName;
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
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad type: ${line}`);
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
    const seriesKey = name + JSON.stringify(Object.entries(labels).sort());
    if (series.has(seriesKey)) throw new Error(`duplicate series: ${line}`);
    series.add(seriesKey);
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

function snapshot(group: string, name: string, value: number | string, tags: MetricTags = {}): MetricSnapshot {
  return { group, name, description: `${name} of ${group}`, tags, value };
}

describe('Prometheus exposition', () => {
  it('names families streams_<name>, labels group, application_id and the tags, types -total as counters', () => {
    const text = renderStreamsPrometheus([
      {
        applicationId: 'orders-app',
        snapshots: [
          snapshot('stream-thread-metrics', 'process-total', 42, { 'thread-id': 'orders-app-StreamThread-1' }),
          snapshot('stream-thread-metrics', 'process-rate', 1.5, { 'thread-id': 'orders-app-StreamThread-1' }),
          snapshot('stream-thread-metrics', 'process-latency-avg', NaN, { 'thread-id': 'orders-app-StreamThread-1' }),
          snapshot('g', 'odd.name', 2),
        ],
      },
    ]);
    expect(text).toBe(
      [
        '# HELP streams_odd_name odd.name of g',
        '# TYPE streams_odd_name gauge',
        'streams_odd_name{group="g",application_id="orders-app"} 2',
        '# HELP streams_process_latency_avg process-latency-avg of stream-thread-metrics',
        '# TYPE streams_process_latency_avg gauge',
        'streams_process_latency_avg{group="stream-thread-metrics",application_id="orders-app",thread_id="orders-app-StreamThread-1"} NaN',
        '# HELP streams_process_rate process-rate of stream-thread-metrics',
        '# TYPE streams_process_rate gauge',
        'streams_process_rate{group="stream-thread-metrics",application_id="orders-app",thread_id="orders-app-StreamThread-1"} 1.5',
        '# HELP streams_process_total process-total of stream-thread-metrics',
        '# TYPE streams_process_total counter',
        'streams_process_total{group="stream-thread-metrics",application_id="orders-app",thread_id="orders-app-StreamThread-1"} 42',
        '',
      ].join('\n'),
    );
    parseStrictly(text);
  });

  it('turns text metrics into _info series with the text in a value label', () => {
    const text = renderStreamsPrometheus([
      {
        applicationId: 'app',
        snapshots: [
          snapshot('stream-metrics', 'state', 'RUNNING', { 'client-id': 'c1' }),
          snapshot('stream-metrics', 'topology-description', 'Topologies:\n   Sub-topology: 0 "x" \\ y', {
            'client-id': 'c1',
          }),
        ],
      },
    ]);
    const families = parseStrictly(text);
    expect(families.get('streams_state_info')).toEqual({
      help: 'state of stream-metrics',
      type: 'gauge',
      samples: [
        {
          name: 'streams_state_info',
          labels: { group: 'stream-metrics', application_id: 'app', client_id: 'c1', value: 'RUNNING' },
          value: 1,
        },
      ],
    });
    expect(text).toContain('value="Topologies:\\n   Sub-topology: 0 \\"x\\" \\\\ y"} 1\n');
    expect(families.get('streams_topology_description_info')?.samples[0]?.labels.value).toBe(
      'Topologies:\n   Sub-topology: 0 "x" \\ y',
    );
  });

  it('merges the same metric name from two groups and two applications into one family', () => {
    const text = renderStreamsPrometheus([
      {
        applicationId: 'b-app',
        snapshots: [
          snapshot('stream-thread-metrics', 'process-rate', 1, { 'thread-id': 't' }),
          snapshot('stream-task-metrics', 'process-rate', 2, { 'thread-id': 't', 'task-id': '0_0' }),
        ],
      },
      {
        applicationId: 'a-app',
        snapshots: [
          snapshot('stream-processor-node-metrics', 'process-rate', 3, {
            'thread-id': 't',
            'task-id': '0_0',
            'processor-node-id': 'source',
          }),
          snapshot('stream-task-metrics', 'process-rate', 4, { 'thread-id': 't', 'task-id': '0_0' }),
        ],
      },
    ]);
    expect(text.match(/# HELP streams_process_rate /g)).toHaveLength(1);
    expect(text.match(/# TYPE streams_process_rate gauge/g)).toHaveLength(1);
    const samples = parseStrictly(text).get('streams_process_rate')?.samples ?? [];
    expect(samples.map((s) => [s.labels.group, s.labels.application_id, s.value])).toEqual([
      ['stream-processor-node-metrics', 'a-app', 3],
      ['stream-task-metrics', 'a-app', 4],
      ['stream-task-metrics', 'b-app', 2],
      ['stream-thread-metrics', 'b-app', 1],
    ]);
  });

  it('escapes label values and HELP text, and keeps label names valid and distinct', () => {
    const text = renderStreamsPrometheus([
      {
        applicationId: 'app "quoted" \\ back\nslash',
        snapshots: [
          {
            group: 'g',
            name: 'weird-total',
            description: 'line one\nline two \\ end',
            tags: { group: 'tag-group', '0-lead': 'x', '__reserved': 'y', 'topic.name': 'a"b' },
            value: 7,
          },
        ],
      },
    ]);
    expect(text).toContain('# HELP streams_weird_total line one\\nline two \\\\ end\n');
    const [sample] = parseStrictly(text).get('streams_weird_total')?.samples ?? [];
    expect(sample?.labels).toEqual({
      group: 'g',
      application_id: 'app "quoted" \\ back\nslash',
      tag_group: 'tag-group',
      _0_lead: 'x',
      tag__reserved: 'y',
      topic_name: 'a"b',
    });
  });

  it('prints special values as Prometheus reads them', () => {
    const text = renderStreamsPrometheus([
      {
        applicationId: 'app',
        snapshots: [snapshot('g', 'a', Infinity), snapshot('g', 'b', -Infinity), snapshot('g', 'c', 1e-7), snapshot('g', 'd', 0)],
      },
    ]);
    const values = text.split('\n').filter((l) => l.startsWith('streams_')).map((l) => l.split(' ')[1]);
    expect(values).toEqual(['+Inf', '-Inf', '1e-7', '0']);
    parseStrictly(text);
  });

  it('renders nothing for no metrics', async () => {
    expect(renderStreamsPrometheus([])).toBe('');
    expect(await renderPrometheus([{ applicationId: 'app', snapshots: [] }], { includeProcessMetrics: false })).toBe('');
  });

  it('with process metrics still forms one valid exposition', async () => {
    const applications = [
      { applicationId: 'app', snapshots: [snapshot('stream-metrics', 'alive-stream-threads', 2, { 'client-id': 'c' })] },
    ];
    const text = await renderPrometheus(applications, { includeProcessMetrics: true });
    const families = parseStrictly(text);
    expect(families.get('streams_alive_stream_threads')?.samples[0]?.value).toBe(2);
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(families.get('nodejs_gc_duration_seconds')?.type).toBe('histogram');
    // A second scrape reuses the same collectors rather than registering them again.
    parseStrictly(await renderPrometheus(applications, { includeProcessMetrics: true }));
    expect(PROMETHEUS_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('has a checker that does reject what strict parsers reject', () => {
    const valid = '# HELP a x\n# TYPE a gauge\na{l="1"} 1\n';
    expect(() => parseStrictly(valid)).not.toThrow();
    expect(() => parseStrictly(valid + '# HELP a y\n')).toThrow(/second HELP|after samples/);
    expect(() => parseStrictly(valid + '# TYPE b gauge\nb 1\na{l="2"} 1\n')).toThrow(/not contiguous/);
    expect(() => parseStrictly('a{l="1",l="2"} 1\n')).toThrow(/duplicate label/);
    expect(() => parseStrictly('a{l="1"} 1\na{l="1"} 2\n')).toThrow(/duplicate series/);
    expect(() => parseStrictly('a-b 1\n')).toThrow(/bad metric name/);
    expect(() => parseStrictly('a{l-x="1"} 1\n')).toThrow(/bad label name/);
    expect(() => parseStrictly('a{l="\\t"} 1\n')).toThrow(/bad labels/);
    expect(() => parseStrictly('a 1\n')).not.toThrow();
    expect(() => parseStrictly('a Nan\n')).toThrow(/bad value/);
    expect(() => parseStrictly('a 1')).toThrow(/newline/);
  });
});
