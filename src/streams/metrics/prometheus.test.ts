import type { MetricSnapshot, MetricTags } from './metrics-registry';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, renderStreamsPrometheus } from './prometheus';
import { parsePrometheusStrictly } from './testing/strict-prometheus';

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
    parsePrometheusStrictly(text);
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
    const families = parsePrometheusStrictly(text);
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
    const samples = parsePrometheusStrictly(text).get('streams_process_rate')?.samples ?? [];
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
    const [sample] = parsePrometheusStrictly(text).get('streams_weird_total')?.samples ?? [];
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
    parsePrometheusStrictly(text);
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
    const families = parsePrometheusStrictly(text);
    expect(families.get('streams_alive_stream_threads')?.samples[0]?.value).toBe(2);
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(families.get('nodejs_gc_duration_seconds')?.type).toBe('histogram');
    // A second scrape reuses the same collectors rather than registering them again.
    parsePrometheusStrictly(await renderPrometheus(applications, { includeProcessMetrics: true }));
    expect(PROMETHEUS_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('has a checker that does reject what strict parsers reject', () => {
    const valid = '# HELP a x\n# TYPE a gauge\na{l="1"} 1\n';
    expect(() => parsePrometheusStrictly(valid)).not.toThrow();
    expect(() => parsePrometheusStrictly(valid + '# HELP a y\n')).toThrow(/second HELP|after samples/);
    expect(() => parsePrometheusStrictly(valid + '# TYPE b gauge\nb 1\na{l="2"} 1\n')).toThrow(/not contiguous/);
    expect(() => parsePrometheusStrictly('a{l="1",l="2"} 1\n')).toThrow(/duplicate label/);
    expect(() => parsePrometheusStrictly('a{l="1"} 1\na{l="1"} 2\n')).toThrow(/duplicate series/);
    expect(() => parsePrometheusStrictly('a-b 1\n')).toThrow(/bad metric name/);
    expect(() => parsePrometheusStrictly('a{l-x="1"} 1\n')).toThrow(/bad label name/);
    expect(() => parsePrometheusStrictly('a{l="\\t"} 1\n')).toThrow(/bad labels/);
    expect(() => parsePrometheusStrictly('a 1\n')).not.toThrow();
    expect(() => parsePrometheusStrictly('a Nan\n')).toThrow(/bad value/);
    expect(() => parsePrometheusStrictly('a 1')).toThrow(/newline/);
  });
});
