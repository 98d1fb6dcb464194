/**
 * The topology graph's drawing, free of the DOM: one group per sub-topology (or global store) holding its sources,
 * processors, sinks and stores, topics outside the groups, laid out by dagre. A collapsed group is one box, its
 * edges redirected to it. Edges follow dagre's own points, made orthogonal: they run sideways only in the gaps
 * between ranks, where no box stands, each in a lane of its own.
 */

import * as dagre from '@dagrejs/dagre';
import type { TopologyDag, TopologyNode } from '../api';

export type NodeKind = 'SOURCE' | 'PROCESSOR' | 'SINK' | 'topic' | 'internal-topic' | 'store' | 'group';

/** The internal topics a topology creates, as Kafka Streams names them. */
export type InternalKind = 'repartition' | 'fk-subscription' | 'fk-response';

export interface Point {
  x: number;
  y: number;
}

export interface DrawnNode {
  id: string;
  kind: NodeKind;
  name: string;
  lines: string[];
  x: number;
  y: number;
  width: number;
  height: number;
  /** The group (`c:<id>` or `g:<id>`) the node is drawn in; none for topics. */
  group?: string;
  internal?: InternalKind;
}

export interface DrawnGroup {
  id: string;
  label: string;
  collapsed: boolean;
  size: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface DrawnEdge {
  from: string;
  to: string;
  store: boolean;
  points: Point[];
}

export interface Drawing {
  width: number;
  height: number;
  groups: DrawnGroup[];
  nodes: DrawnNode[];
  edges: DrawnEdge[];
}

/** What the side panel tells of a node, gathered from the whole description (a collapsed group hides none of it). */
export interface NodeFacts {
  kind: Exclude<NodeKind, 'group'>;
  name: string;
  group?: string;
  internal?: InternalKind;
  node?: TopologyNode;
  /** Topics: the sinks that write it and the sources that read it. Stores: the processors that use it. */
  writers: string[];
  readers: string[];
}

export interface GroupFacts {
  label: string;
  members: string[];
}

export interface Model {
  nodes: Map<string, NodeFacts>;
  groups: Map<string, GroupFacts>;
  edges: { from: string; to: string; store: boolean }[];
}

const CHAR_WIDTH = 6.6;
const LINE_HEIGHT = 14;
const MAX_CHARS = 30;

export const nodeId = (name: string) => `n:${name}`;
export const topicId = (name: string) => `t:${name}`;
export const storeId = (name: string) => `s:${name}`;

/**
 * The internal topic a name stands for, when the topology both writes and reads it. The description names internal
 * topics without the application id their real names start with, so the name's end tells: `<name>-repartition`,
 * `<name>-subscription-registration-topic` and `<name>-subscription-response-topic` (unnamed joins:
 * `KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-<n>-topic`). A changelog never shows as a source or a sink here, so a
 * `-changelog` topic a source reads is another application's: external.
 */
export function internalKind(topic: string, writtenAndRead: boolean): InternalKind | undefined {
  if (!writtenAndRead) return undefined;
  if (/-repartition$/.test(topic)) return 'repartition';
  if (/-subscription-registration(-\d+)?-topic$/i.test(topic)) return 'fk-subscription';
  if (/-subscription-response(-\d+)?-topic$/i.test(topic)) return 'fk-response';
  return undefined;
}

/** A long name in lines of at most MAX_CHARS, broken after its dashes, dots and underscores where it can be. */
export function wrap(name: string): string[] {
  const parts = name.match(/[^-._]*[-._]?/g)?.filter((part) => part !== '') ?? [name];
  const lines: string[] = [];
  let line = '';
  for (let part of parts) {
    while (part.length > MAX_CHARS) {
      if (line !== '') lines.push(line);
      lines.push(part.slice(0, MAX_CHARS));
      part = part.slice(MAX_CHARS);
      line = '';
    }
    if (line.length + part.length > MAX_CHARS) {
      lines.push(line);
      line = part;
    } else {
      line += part;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function modelOf(topology: TopologyDag): Model {
  const nodes = new Map<string, NodeFacts>();
  const groups = new Map<string, GroupFacts>();
  const edges: Model['edges'] = [];
  const written = new Set<string>();
  const read = new Set<string>();
  const everyNode = [...topology.subTopologies.flatMap((s) => s.nodes), ...topology.globalStores.flatMap((g) => [g.source, g.processor])];
  for (const node of everyNode) {
    for (const topic of node.topics ?? []) read.add(topic);
    if (node.topic !== undefined) written.add(node.topic);
  }
  const other = (id: string, kind: 'topic' | 'store', name: string, group?: string): NodeFacts => {
    let facts = nodes.get(id);
    if (facts === undefined) {
      const internal = kind === 'topic' ? internalKind(name, written.has(name) && read.has(name)) : undefined;
      facts = { kind: internal ? 'internal-topic' : kind, name, writers: [], readers: [], ...(group ? { group } : {}), ...(internal ? { internal } : {}) };
      nodes.set(id, facts);
    }
    return facts;
  };
  const addGroup = (group: string, label: string, members: TopologyNode[]) => {
    groups.set(group, { label, members: [] });
    for (const node of members) {
      const id = nodeId(node.name);
      nodes.set(id, { kind: node.type, name: node.name, group, node, writers: [], readers: [] });
      groups.get(group)!.members.push(id);
      for (const next of node.successors) edges.push({ from: id, to: nodeId(next), store: false });
      for (const topic of node.topics ?? []) {
        other(topicId(topic), 'topic', topic).readers.push(node.name);
        edges.push({ from: topicId(topic), to: id, store: false });
      }
      if (node.topic !== undefined) {
        other(topicId(node.topic), 'topic', node.topic).writers.push(node.name);
        edges.push({ from: id, to: topicId(node.topic), store: false });
      }
      for (const store of node.stores ?? []) {
        const facts = other(storeId(store), 'store', store, group);
        if (facts.readers.length === 0) groups.get(group)!.members.push(storeId(store));
        facts.readers.push(node.name);
        edges.push({ from: id, to: storeId(store), store: true });
      }
    }
  };
  for (const sub of topology.subTopologies) addGroup(`c:${sub.id}`, `Sub-topology ${sub.id}`, sub.nodes);
  for (const global of topology.globalStores) addGroup(`g:${global.id}`, `Global store ${global.id}`, [global.source, global.processor]);
  return { nodes, groups, edges };
}

export function drawingOf(model: Model, collapsed: ReadonlySet<string>): Drawing {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: false });
  g.setGraph({ rankdir: 'TB', nodesep: 20, ranksep: 28, edgesep: 8, marginx: 16, marginy: 28 });
  g.setDefaultEdgeLabel(() => ({}));
  const drawnAs = new Map<string, string>();
  const lines = new Map<string, string[]>();
  const size = (text: string[], extra: number) => ({
    width: Math.max(96, Math.max(...text.map((l) => l.length)) * CHAR_WIDTH + extra),
    height: text.length * LINE_HEIGHT + 14,
  });
  for (const [id, group] of model.groups) {
    if (collapsed.has(id)) {
      const text = [group.label, `${group.members.length} nodes`];
      lines.set(id, text);
      g.setNode(id, size(text, 36));
    } else {
      g.setNode(id, {});
    }
    for (const member of group.members) drawnAs.set(member, collapsed.has(id) ? id : member);
  }
  for (const [id, facts] of model.nodes) {
    if (drawnAs.has(id) && drawnAs.get(id) !== id) continue;
    drawnAs.set(id, id);
    const text = wrap(facts.name);
    lines.set(id, text);
    g.setNode(id, size(text, 20));
    if (facts.group !== undefined) g.setParent(id, facts.group);
  }
  const edges = new Map<string, { from: string; to: string; store: boolean }>();
  for (const edge of model.edges) {
    const from = drawnAs.get(edge.from)!;
    const to = drawnAs.get(edge.to)!;
    if (from === to || edges.has(`${from}>${to}`)) continue;
    edges.set(`${from}>${to}`, { from, to, store: edge.store });
    g.setEdge(from, to);
  }
  dagre.layout(g);

  const groups: DrawnGroup[] = [];
  const nodes: DrawnNode[] = [];
  for (const id of g.nodes()) {
    const n = g.node(id);
    const box = { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height };
    const group = model.groups.get(id);
    if (group !== undefined) {
      groups.push({ id, label: group.label, collapsed: collapsed.has(id), size: group.members.length, ...box });
      if (!collapsed.has(id)) continue;
    }
    const facts = model.nodes.get(id);
    nodes.push({
      id,
      kind: facts?.kind ?? 'group',
      name: facts?.name ?? group!.label,
      lines: lines.get(id)!,
      ...box,
      ...(facts?.group !== undefined ? { group: facts.group } : {}),
      ...(facts?.internal ? { internal: facts.internal } : {}),
    });
  }
  const routed = route(
    [...edges.values()].map((e) => ({ ...e, dagre: g.edge(e.from, e.to)?.points ?? [] })),
    new Map(nodes.map((n) => [n.id, n])),
  );
  const graph = g.graph();
  return { width: graph.width ?? 0, height: graph.height ?? 0, groups, nodes, edges: routed };
}

const LANE = 5;

/**
 * Each edge from its source's bottom to its target's top through dagre's points, vertical within a rank and sideways
 * only at a height no box covers; edges that run sideways in the same gap and overlap get lanes of their own.
 */
function route(edges: (Omit<DrawnEdge, 'points'> & { dagre: Point[] })[], boxes: Map<string, DrawnNode>): DrawnEdge[] {
  const bands = [...boxes.values()].map((b) => [b.y, b.y + b.height] as const);
  const covered = (y: number) => bands.some(([top, bottom]) => y > top - 2 && y < bottom + 2);
  /** A height between a and b that no box covers: the middle of the widest free stretch. */
  const freeBetween = (a: number, b: number): number => {
    const [low, high] = a < b ? [a, b] : [b, a];
    const cuts = bands.filter(([top, bottom]) => bottom > low && top < high).sort((p, q) => p[0] - q[0]);
    let best = { from: low, to: low };
    let at = low;
    for (const [top, bottom] of cuts) {
      if (top - at > best.to - best.from) best = { from: at, to: top };
      at = Math.max(at, bottom);
    }
    if (high - at > best.to - best.from) best = { from: at, to: high };
    return (best.from + best.to) / 2;
  };
  const paths = edges.map((edge) => {
    const from = boxes.get(edge.from)!;
    const to = boxes.get(edge.to)!;
    const inner = edge.dagre.slice(1, -1);
    const firstY = (inner[0] ?? { y: to.y }).y;
    const lastY = (inner[inner.length - 1] ?? { y: from.y }).y;
    const start = { x: from.x + from.width / 2, y: firstY >= from.y ? from.y + from.height : from.y };
    const end = { x: to.x + to.width / 2, y: lastY <= to.y + to.height / 2 ? to.y : to.y + to.height };
    const stops = [start, ...inner, end];
    const points: Point[] = [start];
    for (let i = 1; i < stops.length; i++) {
      const a = stops[i - 1]!;
      const b = stops[i]!;
      if (Math.abs(a.x - b.x) >= 1) {
        const inGap = (p: Point, index: number) => index > 0 && index < stops.length - 1 && !covered(p.y);
        const y = inGap(b, i) ? b.y : inGap(a, i - 1) ? a.y : freeBetween(a.y, b.y);
        points.push({ x: a.x, y }, { x: b.x, y });
      }
      points.push(b);
    }
    return { from: edge.from, to: edge.to, store: edge.store, points: simplify(points) };
  });
  assignLanes(paths);
  return paths;
}

/** Drops repeated points and the middle of three in a line. */
function simplify(points: Point[]): Point[] {
  const out: Point[] = [];
  for (const p of points) {
    const last = out[out.length - 1];
    if (last !== undefined && Math.abs(last.x - p.x) < 0.5 && Math.abs(last.y - p.y) < 0.5) continue;
    const before = out[out.length - 2];
    if (before !== undefined && last !== undefined) {
      const vertical = Math.abs(before.x - last.x) < 0.5 && Math.abs(last.x - p.x) < 0.5;
      const horizontal = Math.abs(before.y - last.y) < 0.5 && Math.abs(last.y - p.y) < 0.5;
      if (vertical || horizontal) out.pop();
    }
    out.push(p);
  }
  return out;
}

/** Sideways runs at the same height that overlap are moved apart, centred on that height. */
function assignLanes(paths: DrawnEdge[]): void {
  const runs = new Map<number, { path: DrawnEdge; index: number; low: number; high: number }[]>();
  for (const path of paths) {
    for (let i = 1; i < path.points.length; i++) {
      const a = path.points[i - 1]!;
      const b = path.points[i]!;
      if (Math.abs(a.y - b.y) >= 0.5) continue;
      const key = Math.round(a.y);
      runs.set(key, [...(runs.get(key) ?? []), { path, index: i, low: Math.min(a.x, b.x), high: Math.max(a.x, b.x) }]);
    }
  }
  for (const list of runs.values()) {
    list.sort((p, q) => p.low - q.low);
    const laneEnds: number[] = [];
    const lanes = list.map((run) => {
      let lane = laneEnds.findIndex((end) => end + LANE * 2 < run.low);
      if (lane < 0) lane = laneEnds.length;
      laneEnds[lane] = run.high;
      return lane;
    });
    list.forEach((run, i) => {
      const shift = (lanes[i]! - (laneEnds.length - 1) / 2) * LANE;
      const a = run.path.points[run.index - 1]!;
      const b = run.path.points[run.index]!;
      run.path.points[run.index - 1] = { x: a.x, y: a.y + shift };
      run.path.points[run.index] = { x: b.x, y: b.y + shift };
    });
  }
}

/** An SVG path through orthogonal points, its corners rounded. */
export function pathOf(points: Point[]): string {
  const first = points[0];
  if (first === undefined) return '';
  let d = `M${first.x},${first.y}`;
  for (let i = 1; i < points.length; i++) {
    const p = points[i]!;
    const next = points[i + 1];
    if (next === undefined) {
      d += ` L${p.x},${p.y}`;
      continue;
    }
    const prev = points[i - 1]!;
    const r = Math.min(6, Math.hypot(p.x - prev.x, p.y - prev.y) / 2, Math.hypot(next.x - p.x, next.y - p.y) / 2);
    const towards = (q: Point) => {
      const length = Math.hypot(q.x - p.x, q.y - p.y) || 1;
      return { x: p.x + ((q.x - p.x) / length) * r, y: p.y + ((q.y - p.y) / length) * r };
    };
    const a = towards(prev);
    const b = towards(next);
    d += ` L${a.x},${a.y} Q${p.x},${p.y} ${b.x},${b.y}`;
  }
  return d;
}
