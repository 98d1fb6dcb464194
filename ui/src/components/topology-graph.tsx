/**
 * The topology as a graph, laid out by dagre: one box per sub-topology holding its sources, processors, sinks and
 * stores; topics outside the boxes, so that a repartition topic shows how one sub-topology feeds the next.
 */

import * as dagre from '@dagrejs/dagre';
import { useMemo } from 'preact/hooks';
import type { TopologyDag, TopologyNode } from '../api';

type Kind = 'SOURCE' | 'PROCESSOR' | 'SINK' | 'topic' | 'internal-topic' | 'store' | 'cluster';

interface Box {
  id: string;
  kind: Kind;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Layout {
  width: number;
  height: number;
  clusters: Box[];
  nodes: Box[];
  edges: { from: string; to: string; store: boolean; points: { x: number; y: number }[] }[];
}

const CHAR_WIDTH = 6.6;

function layout(topology: TopologyDag): Layout {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: false });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 44, marginx: 12, marginy: 24 });
  g.setDefaultEdgeLabel(() => ({}));
  const kinds = new Map<string, { kind: Kind; label: string }>();
  const add = (id: string, kind: Kind, label: string, parent?: string) => {
    if (!kinds.has(id)) {
      kinds.set(id, { kind, label });
      g.setNode(id, { width: Math.max(110, label.length * CHAR_WIDTH + 24), height: kind === 'store' ? 34 : 30 });
    }
    if (parent !== undefined) g.setParent(id, parent);
  };
  const edges: { from: string; to: string; store: boolean }[] = [];
  // The description names internal topics without the application id prefix that their real names carry.
  const internal = (topic: string) => /-(repartition|changelog)$/.test(topic);
  const addNodes = (nodes: TopologyNode[], cluster: string) => {
    for (const node of nodes) {
      add(`n:${node.name}`, node.type, node.name, cluster);
      for (const next of node.successors) edges.push({ from: `n:${node.name}`, to: `n:${next}`, store: false });
      for (const topic of node.topics ?? []) {
        add(`t:${topic}`, internal(topic) ? 'internal-topic' : 'topic', topic);
        edges.push({ from: `t:${topic}`, to: `n:${node.name}`, store: false });
      }
      if (node.topic !== undefined) {
        add(`t:${node.topic}`, internal(node.topic) ? 'internal-topic' : 'topic', node.topic);
        edges.push({ from: `n:${node.name}`, to: `t:${node.topic}`, store: false });
      }
      for (const store of node.stores ?? []) {
        add(`s:${store}`, 'store', store, cluster);
        edges.push({ from: `n:${node.name}`, to: `s:${store}`, store: true });
      }
    }
  };
  for (const sub of topology.subTopologies) {
    const cluster = `c:${sub.id}`;
    kinds.set(cluster, { kind: 'cluster', label: `Sub-topology ${sub.id}` });
    g.setNode(cluster, {});
    addNodes(sub.nodes, cluster);
  }
  for (const global of topology.globalStores) {
    const cluster = `g:${global.id}`;
    kinds.set(cluster, { kind: 'cluster', label: `Global store ${global.id}` });
    g.setNode(cluster, {});
    addNodes([global.source, global.processor], cluster);
  }
  for (const edge of edges) g.setEdge(edge.from, edge.to);
  dagre.layout(g);

  const boxes = g.nodes().map((id): Box => {
    const n = g.node(id);
    const { kind, label } = kinds.get(id)!;
    return { id, kind, label, x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height };
  });
  const graph = g.graph();
  return {
    width: graph.width ?? 0,
    height: graph.height ?? 0,
    clusters: boxes.filter((b) => b.kind === 'cluster'),
    nodes: boxes.filter((b) => b.kind !== 'cluster'),
    edges: edges.map((e) => ({ ...e, points: g.edge(e.from, e.to)?.points ?? [] })),
  };
}

const SHORT: Record<Exclude<Kind, 'cluster'>, string> = {
  SOURCE: 'source',
  PROCESSOR: 'processor',
  SINK: 'sink',
  topic: 'topic',
  'internal-topic': 'internal topic',
  store: 'store',
};

export function TopologyGraph({ topology }: { topology: TopologyDag }) {
  const drawn = useMemo(() => layout(topology), [topology]);
  return (
    <div class="graph" data-testid="topology-graph">
      <svg width={drawn.width} height={drawn.height} viewBox={`0 0 ${drawn.width} ${drawn.height}`} role="img" aria-label="Topology graph">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
          </marker>
        </defs>
        {drawn.clusters.map((c) => (
          <g key={c.id} class="cluster">
            <rect x={c.x} y={c.y} width={c.width} height={c.height} rx="8" />
            {/* Above the box: dagre leaves no room inside it for a title. */}
            <text x={c.x + 4} y={c.y - 5}>
              {c.label}
            </text>
          </g>
        ))}
        {drawn.edges.map((e) => (
          <polyline
            key={`${e.from}>${e.to}`}
            class={e.store ? 'edge store-edge' : 'edge'}
            points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
            marker-end={e.store ? undefined : 'url(#arrow)'}
          />
        ))}
        {drawn.nodes.map((n) => (
          <g key={n.id} class={`node ${n.kind.toLowerCase()}`} data-testid="graph-node" data-kind={n.kind} data-name={n.label}>
            <title>
              {SHORT[n.kind as Exclude<Kind, 'cluster'>]}: {n.label}
            </title>
            <rect x={n.x} y={n.y} width={n.width} height={n.height} rx={n.kind === 'store' ? 12 : n.kind.endsWith('topic') ? 15 : 4} />
            <text x={n.x + n.width / 2} y={n.y + n.height / 2 + 4} text-anchor="middle">
              {n.label}
            </text>
          </g>
        ))}
      </svg>
      <ul class="legend">
        {(['SOURCE', 'PROCESSOR', 'SINK', 'store', 'topic', 'internal-topic'] as const).map((kind) => (
          <li key={kind}>
            <span class={`swatch node-${kind.toLowerCase()}`} />
            {SHORT[kind]}
          </li>
        ))}
      </ul>
    </div>
  );
}
