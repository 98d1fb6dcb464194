/** The client commands' output: one rendering of a listing in every format, and each resource's columns. */

import { parse as parseYaml } from 'yaml';
import type { ConsumerOffsets, Instance } from '../../client';
import { configListing, instancesListing, lagListing, metricsListing, recordsListing, statusListing, storesListing, timelineListing, topologiesListing } from './listings';
import { formatEvent, formatTopology, render, renderDocument, table, type Listing, type View } from './output';

const table_: View = { output: 'table', headers: true };
const wide: View = { output: 'wide', headers: true };
const bare: View = { output: 'table', headers: false };

const instance: Instance = {
  id: 'word-count',
  name: 'io.sluice.examples.WordCount',
  version: '1.0.0',
  description: null,
  since: '2026-11-22T01:30:00.123Z[UTC]',
  state: { state: 'RUNNING', since: '2026-11-22T01:30:00.123Z[UTC]' },
  config: {},
  endpoint: { address: 'node-1', port: 8080 },
};

describe('render', () => {
  const listing: Listing<{ k: string; v: number }> = {
    title: 'two rows',
    columns: [
      { header: 'KEY', cell: (row) => row.k },
      { header: 'MORE', cell: () => 'wide only', wide: true },
      { header: 'VALUE', cell: (row) => String(row.v) },
    ],
    rows: [
      { k: 'kafka', v: 3 },
      { k: 'streams', v: 12 },
    ],
    resource: { kafka: 3, streams: 12 },
    empty: '(none)',
  };

  it('aligns columns; wide adds the wide ones; --no-headers leaves out the header and the title', () => {
    expect(table(['KEY', 'VALUE'], [['kafka', '3'], ['streams', '12']])).toBe('KEY      VALUE\nkafka    3\nstreams  12\n');
    expect(render(listing, table_)).toBe('two rows\nKEY      VALUE\nkafka    3\nstreams  12\n');
    expect(render(listing, wide)).toBe('two rows\nKEY      MORE       VALUE\nkafka    wide only  3\nstreams  wide only  12\n');
    expect(render(listing, bare)).toBe('kafka    3\nstreams  12\n');
    expect(render(listing, { output: 'wide', headers: false })).toBe('kafka    wide only  3\nstreams  wide only  12\n');
  });

  it('json and yaml print the resource as it came, whatever the columns', () => {
    expect(JSON.parse(render(listing, { output: 'json', headers: true }))).toEqual({ kafka: 3, streams: 12 });
    expect(parseYaml(render(listing, { output: 'yaml', headers: false }))).toEqual({ kafka: 3, streams: 12 });
  });

  it('an empty listing says so for people, and prints nothing without headers', () => {
    const empty = { ...listing, rows: [] };
    expect(render(empty, table_)).toBe('two rows\n(none)\n');
    expect(render(empty, bare)).toBe('');
    expect(render(empty, { output: 'json', headers: true })).toBe('{\n  "kafka": 3,\n  "streams": 12\n}\n');
  });

  it('a document prints its text for table and wide, its resource for json and yaml', () => {
    expect(renderDocument({ a: 1 }, () => 'text\n', wide)).toBe('text\n');
    expect(renderDocument({ a: 1 }, () => 'text\n', { output: 'yaml', headers: true })).toBe('a: 1\n');
  });
});

describe('listings', () => {
  it('records: key-value, window and timestamped records in their columns', () => {
    expect(render(recordsListing([{ key: 'kafka', value: 3 }], {}), table_)).toBe('KEY    VALUE\nkafka  3\n');
    expect(render(recordsListing([{ key: { key: 'alice', window_start: 0, window_end: 60000 }, value: 2, timestamp: 59000 }], {}), table_)).toBe(
      'KEY    WINDOW_START  WINDOW_END  VALUE  TIMESTAMP\nalice  0             60000       2      59000\n',
    );
    expect(render(recordsListing([{ key: 'u1', value: 'eu', timestamp: 10, valid_to: 20 }], {}), table_)).toBe('KEY  VALUE  TIMESTAMP  VALID_TO\nu1   eu     10         20\n');
    expect(render(recordsListing([], {}), table_)).toBe('(no records)\n');
  });

  it('instances with state, health, since and topology; wide adds the endpoint', () => {
    const health = {
      status: 'UP' as const,
      details: { applications: { name: 'applications' as const, status: 'UP' as const, details: { 'word-count': { status: 'UP' as const, details: { state: 'RUNNING' } } } } },
    };
    expect(render(instancesListing([instance], health), table_)).toBe(
      'APPLICATION  STATE    HEALTH  SINCE                          TOPOLOGY\n' +
        'word-count   RUNNING  UP      2026-11-22T01:30:00.123Z[UTC]  io.sluice.examples.WordCount 1.0.0\n',
    );
    expect(render(instancesListing([instance], health), wide)).toContain('ENDPOINT     TOPOLOGY\n');
  });

  it("one instance's threads under its state line, which --no-headers leaves out", () => {
    const status = { id: 'word-count', state: 'RUNNING' as const, threads: [{ name: 't-1', state: 'RUNNING', active_tasks: [{ task_id: '0_0', topic_partitions: [] }], standby_tasks: [], clients: { consumer_client_id: 'c', producer_client_ids: [], restore_consumer_client_id: 'r', admin_client_id: 'a' } }] };
    expect(render(statusListing(instance, status), table_)).toBe(
      'word-count: RUNNING since 2026-11-22T01:30:00.123Z[UTC] (io.sluice.examples.WordCount 1.0.0)\nTHREAD  STATE    ACTIVE TASKS  STANDBY TASKS\nt-1     RUNNING  0_0           -\n',
    );
    expect(render(statusListing(instance, status), bare)).toBe('t-1  RUNNING  0_0  -\n');
  });

  it('lag: one row per partition in topic order, unknown lag as ?; wide adds threads and consumed offsets', () => {
    const position = { consumed_offset: 5, consumed_timestamp: 0, committed_offset: 4, committed_timestamp: 0, log_end_offset: 9, log_start_offset: 0 };
    const offsets: ConsumerOffsets = {
      group: 'wc',
      consumers: [
        { client_id: 'c-2', stream_thread: 't-2', positions: [{ ...position, topic: 'b', partition: 0, lag: -1 }] },
        { client_id: 'c-1', stream_thread: 't-1', positions: [{ ...position, topic: 'a', partition: 1, lag: 5 }] },
      ],
    };
    expect(render(lagListing(offsets), table_)).toBe('TOPIC  PARTITION  COMMITTED  END  LAG\na      1          4          9    5\nb      0          4          9    ?\n');
    expect(render(lagListing(offsets), wide)).toMatch(/^TOPIC  PARTITION  THREAD  CLIENT  START  CONSUMED  COMMITTED  END  LAG\na      1          t-1     c-1     0      5/);
    expect(render(lagListing({ group: 'wc', consumers: [] }), table_)).toBe('(no partitions assigned in group wc)\n');
  });

  it('metrics with their group and tags; wide adds the description', () => {
    const groups = [{ name: 'stream-metrics', metrics: [{ name: 'alive-stream-threads', description: 'threads alive', tags: { 'client-id': 'c' }, value: 1 }] }];
    expect(render(metricsListing(groups), table_)).toBe('GROUP           NAME                  TAGS         VALUE\nstream-metrics  alive-stream-threads  client-id=c  1\n');
    expect(render(metricsListing(groups), wide)).toContain('threads alive');
  });

  it('stores by name and partition; wide adds the last restoration', () => {
    const stores = [
      { store: 'count', partition: 1, changelog: 'wc-count-changelog', current_offset: 7, log_end_offset: 7, lag: 0, last_restoration: { topic: 't', partition: 1, starting_offset: 0, ending_offset: 7, total_restored: 7, duration_ms: 12 } },
      { store: 'count', partition: 0, changelog: null, current_offset: 3, log_end_offset: 3, lag: 0 },
    ];
    expect(render(storesListing(stores), table_)).toBe(
      'STORE  PARTITION  CHANGELOG           OFFSET  END  LAG\ncount  0          -                   3       3    0\ncount  1          wc-count-changelog  7       7    0\n',
    );
    expect(render(storesListing(stores), wide)).toMatch(/RESTORED  RESTORE_MS\n.*\n.*7         12\n$/);
  });

  it('the timeline: a rebalance with its causes and moved tasks, a restore with its progress; wide adds the node', () => {
    const node = { process_id: 'p1', application_server: 'a:8080' };
    const timeline = {
      application_id: 'wc',
      entries: [
        {
          id: 1,
          type: 'rebalance' as const,
          ...node,
          started_at: '2026-11-22T01:30:00.000Z[UTC]',
          ended_at: '2026-11-22T01:30:00.250Z[UTC]',
          duration_ms: 250,
          generation: 4,
          causes: [{ type: 'member_left' as const, description: 'member left or timed out: b:8080 (p2), 1 thread(s)', process_id: 'p2', application_server: 'b:8080', members: 1 }],
          tasks_gained: [
            { task_id: '0_1', role: 'active' as const, restored_records: 40, restore_done: false },
            { task_id: '0_2', role: 'warmup' as const },
          ],
          tasks_lost: [{ task_id: '0_3', role: 'standby' as const }],
        },
        {
          id: 2,
          type: 'restore' as const,
          ...node,
          task_id: '0_1',
          store: 'counts',
          topic: 'wc-counts-changelog',
          partition: 1,
          start_offset: 0,
          end_offset: 100,
          restored: 40,
          remaining: 60,
          rate: 20,
          estimated_remaining_ms: 3000,
          done: false,
          started_at: '2026-11-22T01:30:00.300Z[UTC]',
          ended_at: null,
          duration_ms: 2000,
        },
      ],
    };
    expect(render(timelineListing(timeline), table_)).toBe(
      'STARTED                        TYPE       DURATION  WHAT          TASKS                                                    DETAIL\n' +
        '2026-11-22T01:30:00.000Z[UTC]  rebalance  250ms     generation 4  +0_1[40 restored, restoring] +0_2(warmup) -0_3(standby)  member left or timed out: b:8080 (p2), 1 thread(s)\n' +
        '2026-11-22T01:30:00.300Z[UTC]  restore    running   counts 0_1    wc-counts-changelog-1                                    40 records, 20/s, 60 offsets to go, ~3000ms left\n',
    );
    expect(render(timelineListing(timeline), wide)).toMatch(/^STARTED\s+NODE\s+TYPE\s+ID\s+DURATION/);
    expect(render(timelineListing({ application_id: 'wc', entries: [] }), table_)).toBe('(no rebalance or restore of wc on this node yet)\n');
  });

  it('topologies with their aliases, and the configuration by key', () => {
    expect(render(topologiesListing([{ name: 'io.sluice.WordCount', version: '1.0.0', description: 'd', aliases: ['word-count', 'wc'] }]), table_)).toBe(
      'NAME                 VERSION  ALIASES\nio.sluice.WordCount  1.0.0    word-count,wc\n',
    );
    expect(render(configListing({ 'num.stream.threads': 2, 'application.id': 'wc' }), table_)).toBe('KEY                 VALUE\napplication.id      wc\nnum.stream.threads  2\n');
  });
});

describe('documents and events', () => {
  it("prints the topology as Kafka Streams' describe() does", () => {
    const dag = {
      subTopologies: [
        {
          id: 0,
          nodes: [
            { type: 'SOURCE' as const, name: 'KSTREAM-SOURCE-0000000000', predecessors: [], successors: ['KSTREAM-AGGREGATE-0000000001'], topics: ['lines'] },
            { type: 'PROCESSOR' as const, name: 'KSTREAM-AGGREGATE-0000000001', predecessors: ['KSTREAM-SOURCE-0000000000'], successors: ['KSTREAM-SINK-0000000002'], stores: ['counts'] },
            { type: 'SINK' as const, name: 'KSTREAM-SINK-0000000002', predecessors: ['KSTREAM-AGGREGATE-0000000001'], successors: [], topic: 'words' },
          ],
        },
      ],
      globalStores: [],
    };
    expect(formatTopology(dag)).toBe(
      [
        'Topologies:',
        '   Sub-topology: 0',
        '    Source: KSTREAM-SOURCE-0000000000 (topics: [lines])',
        '      --> KSTREAM-AGGREGATE-0000000001',
        '    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [counts])',
        '      --> KSTREAM-SINK-0000000002',
        '      <-- KSTREAM-SOURCE-0000000000',
        '    Sink: KSTREAM-SINK-0000000002 (topic: words)',
        '      <-- KSTREAM-AGGREGATE-0000000001',
        '',
      ].join('\n'),
    );
  });

  it('prints one event per line, as JSON one object per line, as YAML one document each', () => {
    const event = { type: 'state', id: '1', data: { state: 'RUNNING', previous: 'REBALANCING' } };
    expect(formatEvent(event, 'table')).toBe('state [1] {"state":"RUNNING","previous":"REBALANCING"}\n');
    expect(JSON.parse(formatEvent(event, 'json'))).toEqual(event);
    expect(formatEvent(event, 'yaml')).toBe('---\ntype: state\nid: "1"\ndata:\n  state: RUNNING\n  previous: REBALANCING\n');
  });
});
