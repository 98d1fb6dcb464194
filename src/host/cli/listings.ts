/**
 * The client commands' listings: for each API resource, its columns (which `-o wide` adds to) and the resource that
 * json and yaml print as it came. How a listing is printed is output.ts's.
 */

import type {
  ConfigValue,
  ConsumerOffsets,
  ConsumerPosition,
  HealthReport,
  Instance,
  InstanceAction,
  InstanceStatus,
  Metric,
  MetricGroup,
  QueryResult,
  StorePartitionStatus,
  StoreRecord,
  Timeline,
  TimelineEntry,
  TopologyInfo,
} from '../../client';
import { cell, type Column, type Listing } from './output';

export function instancesListing(instances: readonly Instance[], health: HealthReport): Listing<Instance> {
  return {
    columns: [
      { header: 'APPLICATION', cell: (instance) => instance.id },
      { header: 'STATE', cell: (instance) => instance.state.state },
      { header: 'HEALTH', cell: (instance) => health.details.applications.details[instance.id]?.status ?? 'UNKNOWN' },
      { header: 'SINCE', cell: (instance) => instance.state.since },
      { header: 'ENDPOINT', cell: (instance) => (instance.endpoint === undefined ? '' : `${instance.endpoint.address}:${instance.endpoint.port}`), wide: true },
      { header: 'TOPOLOGY', cell: (instance) => `${instance.name} ${instance.version}` },
    ],
    rows: instances,
    resource: instances,
    empty: '(no instances)',
  };
}

type Thread = InstanceStatus['threads'][number];

function taskIds(list: readonly { task_id: string }[]): string {
  return list.length === 0 ? '-' : list.map((task) => task.task_id).join(',');
}

export function statusListing(instance: Instance, status: InstanceStatus): Listing<Thread> {
  const error = instance.exception === undefined ? '' : `\nlast error: ${instance.exception}`;
  return {
    title: `${instance.id}: ${instance.state.state} since ${instance.state.since} (${instance.name} ${instance.version})${error}`,
    columns: [
      { header: 'THREAD', cell: (thread) => thread.name },
      { header: 'STATE', cell: (thread) => thread.state },
      { header: 'ACTIVE TASKS', cell: (thread) => taskIds(thread.active_tasks) },
      { header: 'STANDBY TASKS', cell: (thread) => taskIds(thread.standby_tasks) },
    ],
    rows: status.threads,
    resource: status,
    empty: 'no threads',
  };
}

/** What restart and stop answer: the instance's state at that moment (the action goes on after it). */
export function formatAction(verb: string, action: InstanceAction): string {
  return `${verb} ${action.id}: ${action.state}\n`;
}

function isWindowedKey(key: unknown): key is { key: unknown; window_start: number; window_end: number } {
  return typeof key === 'object' && key !== null && 'window_start' in key && 'window_end' in key;
}

/**
 * A query's records: window and session keys get their window's columns, timestamped records a TIMESTAMP, and past
 * versions of a versioned store a VALID_TO; json and yaml print the whole result body.
 */
export function recordsListing(records: readonly StoreRecord[], resource: unknown): Listing<StoreRecord> {
  const windowed = records.some((record) => isWindowedKey(record.key));
  const optional = (value: number | undefined) => (value === undefined ? '' : String(value));
  const columns: Column<StoreRecord>[] = [{ header: 'KEY', cell: (record) => cell(isWindowedKey(record.key) ? record.key.key : record.key) }];
  if (windowed) {
    columns.push(
      { header: 'WINDOW_START', cell: (record) => (isWindowedKey(record.key) ? String(record.key.window_start) : '') },
      { header: 'WINDOW_END', cell: (record) => (isWindowedKey(record.key) ? String(record.key.window_end) : '') },
    );
  }
  columns.push({ header: 'VALUE', cell: (record) => cell(record.value) });
  if (records.some((record) => record.timestamp !== undefined)) columns.push({ header: 'TIMESTAMP', cell: (record) => optional(record.timestamp) });
  if (records.some((record) => record.valid_to !== undefined)) columns.push({ header: 'VALID_TO', cell: (record) => optional(record.valid_to) });
  return { columns, rows: records, resource, empty: '(no records)' };
}

/** What a query's answer lacks, for standard error: its status, its error and every failed part. */
export function describeIncomplete(result: QueryResult): string {
  const lines = [`query status ${result.status}${result.timedOut ? ' (timed out)' : ''}${result.raw.result.error ? `: ${result.raw.result.error}` : ''}`];
  for (const part of result.failure) {
    for (const error of part.errors) lines.push(`  ${part.server}${part.remote ? ' (remote)' : ''}: ${error.message}`);
  }
  return lines.join('\n') + '\n';
}

type Position = ConsumerPosition & { thread: string; client: string };

/** Consumed, committed and end offsets per input partition, with the lag (-1, unknown, shown as `?`). */
export function lagListing(offsets: ConsumerOffsets): Listing<Position> {
  const rows = offsets.consumers
    .flatMap((consumer) => consumer.positions.map((position) => ({ ...position, thread: consumer.stream_thread, client: consumer.client_id })))
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  return {
    columns: [
      { header: 'TOPIC', cell: (row) => row.topic },
      { header: 'PARTITION', cell: (row) => String(row.partition) },
      { header: 'THREAD', cell: (row) => row.thread, wide: true },
      { header: 'CLIENT', cell: (row) => row.client, wide: true },
      { header: 'START', cell: (row) => String(row.log_start_offset), wide: true },
      { header: 'CONSUMED', cell: (row) => String(row.consumed_offset), wide: true },
      { header: 'COMMITTED', cell: (row) => String(row.committed_offset) },
      { header: 'END', cell: (row) => String(row.log_end_offset) },
      { header: 'LAG', cell: (row) => (row.lag < 0 ? '?' : String(row.lag)) },
    ],
    rows,
    resource: offsets,
    empty: `(no partitions assigned in group ${offsets.group})`,
  };
}

type GroupedMetric = Metric & { group: string };

function tags(metric: Metric): string {
  return Object.entries(metric.tags)
    .map(([name, value]) => `${name}=${value}`)
    .join(',');
}

export function metricsListing(groups: readonly MetricGroup[]): Listing<GroupedMetric> {
  return {
    columns: [
      { header: 'GROUP', cell: (row) => row.group },
      { header: 'NAME', cell: (row) => row.name },
      { header: 'TAGS', cell: (row) => tags(row) },
      { header: 'DESCRIPTION', cell: (row) => row.description, wide: true },
      { header: 'VALUE', cell: (row) => String(row.value) },
    ],
    rows: groups.flatMap((group) => group.metrics.map((metric) => ({ ...metric, group: group.name }))),
    resource: groups,
    empty: '(no metrics)',
  };
}

export function storesListing(stores: readonly StorePartitionStatus[]): Listing<StorePartitionStatus> {
  const restoration = (store: StorePartitionStatus, value: (r: NonNullable<StorePartitionStatus['last_restoration']>) => number) =>
    store.last_restoration === undefined ? '' : String(value(store.last_restoration));
  return {
    columns: [
      { header: 'STORE', cell: (store) => store.store },
      { header: 'PARTITION', cell: (store) => String(store.partition) },
      { header: 'CHANGELOG', cell: (store) => store.changelog ?? '-' },
      { header: 'OFFSET', cell: (store) => String(store.current_offset) },
      { header: 'END', cell: (store) => String(store.log_end_offset) },
      { header: 'LAG', cell: (store) => String(store.lag) },
      { header: 'RESTORED', cell: (store) => restoration(store, (r) => r.total_restored), wide: true },
      { header: 'RESTORE_MS', cell: (store) => restoration(store, (r) => r.duration_ms), wide: true },
    ],
    rows: [...stores].sort((a, b) => a.store.localeCompare(b.store) || a.partition - b.partition),
    resource: stores,
    empty: '(no store partitions on this node)',
  };
}

function duration(ms: number | null): string {
  if (ms === null) return 'running';
  return ms < 10_000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`;
}

/** A rebalance's moved tasks: `+0_1 +0_2(standby) -0_3`, a gained active task with what it restored. */
function movedTasks(entry: Extract<TimelineEntry, { type: 'rebalance' }>): string {
  const role = (r: string) => (r === 'active' ? '' : `(${r})`);
  const gained = entry.tasks_gained.map((t) => {
    const restored = t.restored_records === undefined ? '' : `[${t.restored_records} restored${t.restore_done === false ? ', restoring' : ''}]`;
    return `+${t.task_id}${role(t.role)}${restored}`;
  });
  const lost = entry.tasks_lost.map((t) => `-${t.task_id}${role(t.role)}`);
  const all = [...gained, ...lost];
  return all.length === 0 ? '-' : all.join(' ');
}

function subjectOf(entry: TimelineEntry): string {
  if (entry.type === 'rebalance') return entry.generation === null ? 'joining' : `generation ${entry.generation}`;
  return `${entry.store} ${entry.task_id}`;
}

function detailOf(entry: TimelineEntry): string {
  if (entry.type === 'rebalance') return entry.causes.map((c) => c.description).join('; ') || '-';
  const progress = `${entry.restored} records, ${entry.rate}/s`;
  if (entry.done) return `${progress}, offsets ${entry.start_offset}..${entry.end_offset}`;
  const left = entry.estimated_remaining_ms === null ? '' : `, ~${duration(entry.estimated_remaining_ms)} left`;
  return `${progress}, ${entry.remaining} offsets to go${left}`;
}

/** The columns of a timeline entry, for the listing and for the entries --follow prints one by one. */
export const TIMELINE_COLUMNS: readonly Column<TimelineEntry>[] = [
  { header: 'STARTED', cell: (entry) => entry.started_at },
  { header: 'NODE', cell: (entry) => entry.application_server ?? entry.process_id, wide: true },
  { header: 'TYPE', cell: (entry) => entry.type },
  { header: 'ID', cell: (entry) => String(entry.id), wide: true },
  { header: 'DURATION', cell: (entry) => duration(entry.duration_ms === null || (entry.type === 'restore' && !entry.done) ? null : entry.duration_ms) },
  { header: 'WHAT', cell: subjectOf },
  { header: 'TASKS', cell: (entry) => (entry.type === 'rebalance' ? movedTasks(entry) : `${entry.topic}-${entry.partition}`) },
  { header: 'DETAIL', cell: detailOf },
];

/**
 * The node's rebalances (generation, causes, tasks moved) and restores (records, rate, time left), oldest first; the
 * cluster's (`success` set: scope=cluster) name each entry's node without wide.
 */
export function timelineListing(timeline: Timeline): Listing<TimelineEntry> {
  const cluster = timeline.success !== undefined;
  return {
    columns: cluster ? TIMELINE_COLUMNS.map((column) => (column.header === 'NODE' ? { ...column, wide: false } : column)) : TIMELINE_COLUMNS,
    rows: timeline.entries,
    resource: timeline,
    empty: `(no rebalance or restore of ${timeline.application_id} on ${cluster ? 'any node that answered' : 'this node'} yet)`,
  };
}

export function topologiesListing(topologies: readonly TopologyInfo[]): Listing<TopologyInfo> {
  return {
    columns: [
      { header: 'NAME', cell: (topology) => topology.name },
      { header: 'VERSION', cell: (topology) => topology.version },
      { header: 'ALIASES', cell: (topology) => topology.aliases.join(',') },
      { header: 'DESCRIPTION', cell: (topology) => topology.description, wide: true },
    ],
    rows: topologies,
    resource: topologies,
    empty: '(no topologies)',
  };
}

/** The configuration as the API answers it, its secrets already hidden by the node; keys in order. */
export function configListing(config: Readonly<Record<string, ConfigValue>>): Listing<[string, ConfigValue]> {
  return {
    columns: [
      { header: 'KEY', cell: ([key]) => key },
      { header: 'VALUE', cell: ([, value]) => String(value) },
    ],
    rows: Object.entries(config).sort(([a], [b]) => a.localeCompare(b)),
    resource: config,
    empty: '(no configuration)',
  };
}
