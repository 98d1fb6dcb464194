/**
 * How the client commands print, in one place. A listing is columns over rows plus the API resource it came from:
 * `-o table` prints the columns for people, `-o wide` also the wide ones, `-o json` and `-o yaml` the resource as the
 * API answered it (for scripts, which then never depend on the columns). `--no-headers` leaves out the header line
 * (and a listing's title) of table and wide. Documents that are text for people (the topology, an action's outcome)
 * print that text for table and wide, the resource otherwise.
 */

import { stringify as toYaml } from 'yaml';
import type { SluiceEvent, TopologyDag, TopologyNode } from '../../client';

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What the user asked to see: `-o` and `--no-headers`. */
export interface View {
  output: OutputFormat;
  headers: boolean;
}

export interface Column<R> {
  readonly header: string;
  readonly cell: (row: R) => string;
  /** Shown by `-o wide` only. */
  readonly wide?: boolean;
}

export interface Listing<R> {
  readonly columns: readonly Column<R>[];
  readonly rows: readonly R[];
  /** What json and yaml print: the API's resource as it came. */
  readonly resource: unknown;
  /** A line above the table, for people: left out with --no-headers. */
  readonly title?: string;
  /** What an empty table says, for people: nothing with --no-headers, so that a script reads no rows. */
  readonly empty: string;
}

export function print(text: string): void {
  process.stdout.write(text);
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], headers = true): string {
  const shown = headers ? [header, ...rows] : rows;
  const widths = header.map((_, column) => Math.max(...shown.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return shown.map((row) => `${line(row)}\n`).join('');
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function yaml(value: unknown): string {
  return toYaml(value);
}

/** A JSON value in a cell: strings as they are, the rest as JSON. */
export function cell(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

function resource(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? json(value) : yaml(value);
}

export function render<R>(listing: Listing<R>, view: View): string {
  if (view.output === 'json' || view.output === 'yaml') return resource(listing.resource, view.output);
  const title = view.headers && listing.title !== undefined ? `${listing.title}\n` : '';
  if (listing.rows.length === 0) return title + (view.headers ? `${listing.empty}\n` : '');
  const columns = view.output === 'wide' ? listing.columns : listing.columns.filter((column) => column.wide !== true);
  const rows = listing.rows.map((row) => columns.map((column) => column.cell(row)));
  return title + table(columns.map((column) => column.header), rows, view.headers);
}

/** A document: its text for people (table, wide), the resource for scripts (json, yaml). */
export function renderDocument(value: unknown, text: () => string, view: View): string {
  return view.output === 'json' || view.output === 'yaml' ? resource(value, view.output) : text();
}

/** One event per line: `<type> [<id>] <data as JSON>`; as JSON, one object per line; as YAML, one document each. */
export function formatEvent(event: SluiceEvent, format: OutputFormat): string {
  const value = { type: event.type, id: event.id, data: event.data };
  if (format === 'json') return `${JSON.stringify(value)}\n`;
  if (format === 'yaml') return `---\n${yaml(value)}`;
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
