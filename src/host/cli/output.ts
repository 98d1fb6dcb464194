/**
 * What the client commands print. `--output json` prints the API's own resources as JSON (one object per line for
 * events); `--output table` prints aligned columns for people, and the topology as Kafka Streams' describe() text.
 */

import type {
  HealthReport,
  Instance,
  InstanceAction,
  InstanceStatus,
  QueryResult,
  SluiceEvent,
  StoreRecord,
  TopologyDag,
  TopologyNode,
} from '../../client';

export const OUTPUT_FORMATS = ['table', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A JSON value in a cell: strings as they are, the rest as JSON. */
function cell(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

export function formatInstances(instances: readonly Instance[], health: HealthReport): string {
  const rows = instances.map((instance) => [
    instance.id,
    instance.state.state,
    health.details.applications.details[instance.id]?.status ?? 'UNKNOWN',
    instance.state.since,
    `${instance.name} ${instance.version}`,
  ]);
  return table(['APPLICATION', 'STATE', 'HEALTH', 'SINCE', 'TOPOLOGY'], rows);
}

export function formatStatus(instance: Instance, status: InstanceStatus): string {
  const head = `${instance.id}: ${instance.state.state} since ${instance.state.since} (${instance.name} ${instance.version})\n`;
  const tasks = (list: readonly { task_id: string }[]) => (list.length === 0 ? '-' : list.map((task) => task.task_id).join(','));
  const rows = status.threads.map((thread) => [thread.name, thread.state, tasks(thread.active_tasks), tasks(thread.standby_tasks)]);
  const error = instance.exception === undefined ? '' : `last error: ${instance.exception}\n`;
  return head + error + (rows.length === 0 ? 'no threads\n' : table(['THREAD', 'STATE', 'ACTIVE TASKS', 'STANDBY TASKS'], rows));
}

export function formatAction(verb: string, action: InstanceAction): string {
  return `${verb} ${action.id}: ${action.state}\n`;
}

function isWindowedKey(key: unknown): key is { key: unknown; window_start: number; window_end: number } {
  return typeof key === 'object' && key !== null && 'window_start' in key && 'window_end' in key;
}

/**
 * The records as a table: window and session keys get their window's columns, timestamped records a TIMESTAMP, and
 * past versions of a versioned store a VALID_TO.
 */
export function formatRecords(records: readonly StoreRecord[]): string {
  if (records.length === 0) return '(no records)\n';
  const windowed = records.some((record) => isWindowedKey(record.key));
  const timestamped = records.some((record) => record.timestamp !== undefined);
  const versioned = records.some((record) => record.valid_to !== undefined);
  const header = windowed ? ['KEY', 'WINDOW_START', 'WINDOW_END', 'VALUE'] : ['KEY', 'VALUE'];
  if (timestamped) header.push('TIMESTAMP');
  if (versioned) header.push('VALID_TO');
  const rows = records.map((record) => {
    const key = record.key;
    const cells = isWindowedKey(key) ? [cell(key.key), String(key.window_start), String(key.window_end)] : [cell(key)];
    if (windowed && !isWindowedKey(key)) cells.push('', '');
    cells.push(cell(record.value));
    if (timestamped) cells.push(record.timestamp === undefined ? '' : String(record.timestamp));
    if (versioned) cells.push(record.valid_to === undefined ? '' : String(record.valid_to));
    return cells;
  });
  return table(header, rows);
}

/** What a query's answer lacks, for standard error: its status, its error and every failed part. */
export function describeIncomplete(result: QueryResult): string {
  const lines = [`query status ${result.status}${result.timedOut ? ' (timed out)' : ''}${result.raw.result.error ? `: ${result.raw.result.error}` : ''}`];
  for (const part of result.failure) {
    for (const error of part.errors) lines.push(`  ${part.server}${part.remote ? ' (remote)' : ''}: ${error.message}`);
  }
  return lines.join('\n') + '\n';
}

/** One event per line: `<type> [<id>] <data as JSON>`, or the event as one JSON object. */
export function formatEvent(event: SluiceEvent, format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify({ type: event.type, id: event.id, data: event.data })}\n`;
  return `${event.type}${event.id === undefined ? '' : ` [${event.id}]`} ${JSON.stringify(event.data)}\n`;
}

function describeNode(node: TopologyNode): string {
  switch (node.type) {
    case 'SOURCE':
      return `Source: ${node.name} (topics: [${(node.topics ?? []).join(', ')}])`;
    case 'SINK':
      return `Sink: ${node.name} (topic: ${node.topic ?? ''})`;
    case 'PROCESSOR':
      return `Processor: ${node.name} (stores: [${(node.stores ?? []).join(', ')}])`;
  }
}

function nodeLines(node: TopologyNode): string[] {
  const lines = [`    ${describeNode(node)}`];
  // As Kafka Streams: a sink has no successors line.
  if (node.type !== 'SINK') lines.push(`      --> ${node.successors.length === 0 ? 'none' : node.successors.join(', ')}`);
  if (node.predecessors.length > 0) lines.push(`      <-- ${node.predecessors.join(', ')}`);
  return lines;
}

/** The DAG in the layout of Kafka Streams' TopologyDescription.toString(). */
export function formatTopology(dag: TopologyDag): string {
  const lines = ['Topologies:'];
  for (const sub of dag.subTopologies) {
    lines.push(`   Sub-topology: ${sub.id}`);
    for (const node of sub.nodes) lines.push(...nodeLines(node));
  }
  for (const global of dag.globalStores) {
    lines.push(`   Sub-topology: ${global.id} for global store (will not generate tasks)`);
    lines.push(...nodeLines(global.source), ...nodeLines(global.processor));
  }
  return lines.join('\n') + '\n';
}
