/**
 * The topology as a graph (layout in topology-layout.ts), fitted to its box, with zoom (buttons, Ctrl + wheel or a
 * pinch) and pan (drag). Each sub-topology is a group that collapses to one box. Nodes are buttons: a click, or Enter
 * or Space on the focused one, opens its side panel; the arrow keys move between nodes, Esc closes the panel. Under
 * each node, live figures of this node read every few seconds (topology-figures.ts): a source's, processor's or sink's
 * records per second, their end-to-end latency where recorded (the sources) and its failures; a store's keys, bytes
 * on disk and cache hits (when recorded); an internal topic's lag. The side panel has them in full.
 */

import { Fragment, type TargetedKeyboardEvent, type TargetedPointerEvent, type TargetedWheelEvent } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, streamPath, type ConsumerOffsets, type MetricGroup, type TopologyDag } from '../api';
import { lagFigures, lineOf, nodeFigures, ratesBetween, readingOf, storeFigures, type Figure, type Reading } from './topology-figures';
import { drawingOf, modelOf, pathOf, type DrawnNode, type NodeKind } from './topology-layout';
import { NodePanel } from './topology-panel';

interface View {
  k: number;
  x: number;
  y: number;
}

const PAD = 12;
const MIN_HEIGHT = 220;
const MIN_ZOOM = 0.1;
const MAX_ZOOM = 4;
const ZOOM_STEP = 1.25;
/** A pointer that moves less than this between down and up clicked; more, it dragged. */
const DRAG_PX = 4;
/** How often the live figures are read. */
const FIGURES_INTERVAL_MS = 2000;

/** Read in one poll; a group with no metric yet answers 404. */
const FIGURE_GROUPS = ['stream-processor-node-metrics', 'stream-state-metrics', 'stream-record-cache-metrics'];

interface Live {
  reading: Reading | undefined;
  rates: ReadonlyMap<string, number>;
}

/**
 * The graph's live figures: one poll every few seconds reads the metric groups they come from, and the offsets when
 * the topology has internal topics, whatever the number of nodes; it stops when the graph is unmounted.
 */
function useLiveFigures(id: string, internalTopics: ReadonlySet<string>): Live {
  const [live, setLive] = useState<Live>({ reading: undefined, rates: new Map() });
  useEffect(() => {
    let mounted = true;
    let previous: Reading | undefined;
    const group = (name: string) => api.get<MetricGroup[]>(`${streamPath(id)}/metrics/group/${name}`).catch(() => []);
    const read = async () => {
      const [groups, offsets] = await Promise.all([
        Promise.all(FIGURE_GROUPS.map(group)).then((answers) => answers.flat()),
        // A failed read of the offsets leaves the lags out until the next.
        internalTopics.size === 0 ? undefined : api.get<ConsumerOffsets>(`${streamPath(id)}/offsets`).catch(() => undefined),
      ]);
      const reading = readingOf(performance.now(), offsets === undefined ? { groups } : { groups, offsets }, id, internalTopics);
      const before = previous;
      previous = reading;
      if (mounted) setLive({ reading, rates: before === undefined ? new Map() : ratesBetween(before, reading) });
    };
    void read();
    const timer = setInterval(() => void read(), FIGURES_INTERVAL_MS);
    return () => {
      mounted = false;
      clearInterval(timer);
    };
  }, [id, internalTopics]);
  return live;
}

/** The figures under a drawn node, by its kind. */
function figuresOf(node: DrawnNode, live: Live): Figure[] {
  switch (node.kind) {
    case 'SOURCE':
    case 'PROCESSOR':
    case 'SINK':
      return nodeFigures(live.rates.get(node.name), live.reading?.nodes.get(node.name));
    case 'store':
      return storeFigures(live.reading?.stores.get(node.name));
    case 'internal-topic':
      return lagFigures(live.reading?.lags.get(node.name));
    default:
      return [];
  }
}

const KIND_NAME: Record<NodeKind, string> = {
  SOURCE: 'source',
  PROCESSOR: 'processor',
  SINK: 'sink',
  topic: 'topic',
  'internal-topic': 'internal topic',
  store: 'store',
  group: 'group',
};

const LEGEND: { kind: Exclude<NodeKind, 'group'>; text: string }[] = [
  { kind: 'SOURCE', text: 'source' },
  { kind: 'PROCESSOR', text: 'processor' },
  { kind: 'SINK', text: 'sink' },
  { kind: 'store', text: 'store' },
  { kind: 'topic', text: 'topic' },
  { kind: 'internal-topic', text: 'internal topic: created by the application (repartition, foreign-key join subscription and response)' },
];

/** The node nearest to `from` in the direction of an arrow key, favouring those straight ahead. */
function nextInDirection(nodes: DrawnNode[], from: DrawnNode, key: string): DrawnNode | undefined {
  const centre = (n: DrawnNode) => ({ x: n.x + n.width / 2, y: n.y + n.height / 2 });
  const c = centre(from);
  let best: { node: DrawnNode; score: number } | undefined;
  for (const node of nodes) {
    if (node === from) continue;
    const p = centre(node);
    const [ahead, aside] =
      key === 'ArrowDown' ? [p.y - c.y, p.x - c.x] : key === 'ArrowUp' ? [c.y - p.y, p.x - c.x] : key === 'ArrowRight' ? [p.x - c.x, p.y - c.y] : [c.x - p.x, p.y - c.y];
    if (ahead <= 1) continue;
    const score = ahead + Math.abs(aside) * 2;
    if (best === undefined || score < best.score) best = { node, score };
  }
  return best?.node;
}

export function TopologyGraph({ topology, id }: { topology: TopologyDag; id: string }) {
  const model = useMemo(() => modelOf(topology), [topology]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const drawing = useMemo(() => drawingOf(model, collapsed), [model, collapsed]);
  const internalTopics = useMemo(() => new Set([...model.nodes.values()].filter((n) => n.kind === 'internal-topic').map((n) => n.name)), [model]);
  const live = useLiveFigures(id, internalTopics);
  const [width, setWidth] = useState(0);
  const [view, setView] = useState<View>({ k: 1, x: 0, y: 0 });
  // While true the drawing follows the box's size; a zoom or a pan leaves it where the user put it.
  const [fitted, setFitted] = useState(true);
  const [selected, setSelected] = useState<string | undefined>();
  const [current, setCurrent] = useState<string | undefined>();
  const viewport = useRef<HTMLDivElement>(null);
  const panel = useRef<HTMLElement>(null);
  const drag = useRef<{ pointer: number; x: number; y: number; from: View; moved: boolean } | undefined>(undefined);
  const dragged = useRef(false);
  // The control a group's toggle was pressed on is gone once the group is redrawn: the focus goes to its new one.
  const refocus = useRef<string | undefined>(undefined);

  useLayoutEffect(() => {
    const element = viewport.current;
    if (element === null) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(() => setWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // As tall as the drawing is when fitted to the box's width, within a screenful.
  const widthScale = Math.min(1, (width - 2 * PAD) / Math.max(1, drawing.width));
  const height = Math.round(Math.max(MIN_HEIGHT, Math.min(window.innerHeight * 0.75, drawing.height * widthScale + 2 * PAD)));
  const fit = (): View => {
    const k = Math.max(MIN_ZOOM, Math.min(1, (width - 2 * PAD) / Math.max(1, drawing.width), (height - 2 * PAD) / Math.max(1, drawing.height)));
    return { k, x: (width - drawing.width * k) / 2, y: (height - drawing.height * k) / 2 };
  };
  useLayoutEffect(() => {
    if (fitted && width > 0) setView(fit());
  }, [drawing, width, height, fitted]);

  const zoom = (factor: number, at = { x: width / 2, y: height / 2 }) => {
    setFitted(false);
    setView((v) => {
      const k = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, v.k * factor));
      return { k, x: at.x - ((at.x - v.x) * k) / v.k, y: at.y - ((at.y - v.y) * k) / v.k };
    });
  };

  const nodes = drawing.nodes;
  const focusable = nodes.some((n) => n.id === current) ? current : nodes[0]?.id;
  const focusNode = (nodeId: string) => viewport.current?.querySelector<SVGGElement>(`[data-id="${CSS.escape(nodeId)}"]`)?.focus();
  /** Pans just enough to bring a node into the box, for one reached by the keyboard. */
  const reveal = (node: DrawnNode) => {
    const left = node.x * view.k + view.x;
    const top = node.y * view.k + view.y;
    const right = left + node.width * view.k;
    const bottom = top + node.height * view.k;
    const dx = left < PAD ? PAD - left : right > width - PAD ? width - PAD - right : 0;
    const dy = top < PAD ? PAD - top : bottom > height - PAD ? height - PAD - bottom : 0;
    if (dx === 0 && dy === 0) return;
    setFitted(false);
    setView({ ...view, x: view.x + dx, y: view.y + dy });
  };
  const open = (node: DrawnNode) => {
    if (node.kind === 'group') {
      toggle(node.id);
      return;
    }
    setSelected(node.id);
  };
  const toggle = (group: string) => {
    setCollapsed((set) => {
      const next = new Set(set);
      if (!next.delete(group)) next.add(group);
      return next;
    });
    setFitted(true);
    setCurrent(group);
    refocus.current = group;
  };
  const close = () => {
    const opener = selected;
    setSelected(undefined);
    if (opener !== undefined) focusNode(opener);
  };
  useEffect(() => {
    if (selected !== undefined) panel.current?.focus();
  }, [selected]);
  useEffect(() => {
    // A node of a group just collapsed is not drawn: the panel follows it out.
    if (selected !== undefined && !nodes.some((n) => n.id === selected)) setSelected(undefined);
    const group = refocus.current;
    refocus.current = undefined;
    if (group !== undefined) viewport.current?.querySelector<SVGGElement>(`[data-id="${CSS.escape(group)}"], [data-toggle="${CSS.escape(group)}"]`)?.focus();
  }, [drawing]);

  const onNodeKey = (node: DrawnNode) => (event: TargetedKeyboardEvent<SVGGElement>) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      open(node);
      return;
    }
    const next = event.key.startsWith('Arrow') ? nextInDirection(nodes, node, event.key) : event.key === 'Home' ? nodes[0] : event.key === 'End' ? nodes[nodes.length - 1] : undefined;
    if (next === undefined) return;
    event.preventDefault();
    setCurrent(next.id);
    focusNode(next.id);
  };

  const onPointerDown = (event: TargetedPointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    drag.current = { pointer: event.pointerId, x: event.clientX, y: event.clientY, from: view, moved: false };
  };
  const onPointerMove = (event: TargetedPointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (d === undefined || d.pointer !== event.pointerId) return;
    const dx = event.clientX - d.x;
    const dy = event.clientY - d.y;
    if (!d.moved && Math.hypot(dx, dy) < DRAG_PX) return;
    if (!d.moved) {
      // Captured only once it drags: a capture from the start would take the click from the node pressed.
      d.moved = true;
      event.currentTarget.setPointerCapture(event.pointerId);
    }
    setFitted(false);
    setView({ ...d.from, x: d.from.x + dx, y: d.from.y + dy });
  };
  const onPointerUp = () => {
    dragged.current = drag.current?.moved === true;
    drag.current = undefined;
  };
  const onWheel = (event: TargetedWheelEvent<HTMLDivElement>) => {
    // A plain wheel scrolls the page; Ctrl + wheel (and a touchpad's pinch, which comes as one) zooms.
    if (!event.ctrlKey) return;
    event.preventDefault();
    const box = event.currentTarget.getBoundingClientRect();
    zoom(Math.exp(-event.deltaY / 300), { x: event.clientX - box.left, y: event.clientY - box.top });
  };

  const selectedFacts = selected === undefined ? undefined : model.nodes.get(selected);
  return (
    <div
      class="graph"
      data-testid="topology-graph"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && selected !== undefined) {
          event.preventDefault();
          close();
        }
      }}
    >
      <div class="graph-toolbar" role="toolbar" aria-label="Graph view">
        <button type="button" onClick={() => zoom(ZOOM_STEP)} aria-label="Zoom in" title="Zoom in" data-testid="graph-zoom-in">
          +
        </button>
        <button type="button" onClick={() => zoom(1 / ZOOM_STEP)} aria-label="Zoom out" title="Zoom out" data-testid="graph-zoom-out">
          −
        </button>
        <button type="button" onClick={() => setFitted(true)} data-testid="graph-fit">
          Fit
        </button>
        <span class="muted hint">Drag to pan · Ctrl + wheel to zoom · arrows move between nodes</span>
      </div>
      <div class={selectedFacts ? 'graph-body with-panel' : 'graph-body'}>
        <div
          class="graph-viewport"
          data-testid="graph-viewport"
          ref={viewport}
          style={{ height: `${height}px` }}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={onPointerUp}
          onWheel={onWheel}
          onClickCapture={(event) => {
            if (!dragged.current) return;
            dragged.current = false;
            event.stopPropagation();
          }}
        >
          <svg width="100%" height="100%" role="group" aria-label={`Topology graph, ${nodes.length} nodes`}>
            <defs>
              <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
              </marker>
            </defs>
            <g class="drawing" data-testid="graph-drawing" transform={`translate(${view.x} ${view.y}) scale(${view.k})`}>
              {drawing.groups
                .filter((group) => !group.collapsed)
                .map((group) => (
                  <g key={group.id} class="cluster" data-testid="graph-group" data-group={group.label}>
                    <rect x={group.x} y={group.y} width={group.width} height={group.height} rx="8" />
                    {/* Above the box: dagre leaves no room inside it for a title. */}
                    <g
                      class="group-toggle"
                      data-toggle={group.id}
                      role="button"
                      tabindex={0}
                      aria-expanded="true"
                      aria-label={`Collapse ${group.label}`}
                      onClick={() => toggle(group.id)}
                      onKeyDown={(event) => {
                        if (event.key !== 'Enter' && event.key !== ' ') return;
                        event.preventDefault();
                        toggle(group.id);
                      }}
                    >
                      <text x={group.x + 4} y={group.y - 6}>
                        ▾ {group.label}
                      </text>
                    </g>
                  </g>
                ))}
              {drawing.edges.map((e) => (
                <path key={`${e.from}>${e.to}`} class={e.store ? 'edge store-edge' : 'edge'} d={pathOf(e.points)} marker-end={e.store ? undefined : 'url(#arrow)'} />
              ))}
              {nodes.map((n) => {
                const group = n.kind === 'group';
                const figures = figuresOf(n, live);
                // The figures beside the node's button, not in it: their text is in its name, which a text inside it would
                // have to repeat as it reads (axe's label-content-name-mismatch).
                return (
                  <Fragment key={n.id}>
                    <g
                      class={`node ${n.kind.toLowerCase()}${n.id === selected ? ' selected' : ''}`}
                      data-testid="graph-node"
                      data-id={n.id}
                      data-kind={n.kind}
                      data-name={n.name}
                      data-internal={n.internal}
                      role="button"
                      tabindex={n.id === focusable ? 0 : -1}
                      aria-label={group ? `Expand ${n.name}` : figures.length === 0 ? `${KIND_NAME[n.kind]} ${n.name}` : `${KIND_NAME[n.kind]} ${n.name}, ${lineOf(figures)}`}
                      aria-expanded={group ? 'false' : n.id === selected ? 'true' : 'false'}
                      aria-controls={n.id === selected ? 'graph-panel' : undefined}
                      onClick={() => {
                        setCurrent(n.id);
                        open(n);
                      }}
                      onFocus={() => {
                        setCurrent(n.id);
                        reveal(n);
                      }}
                      onKeyDown={onNodeKey(n)}
                    >
                      <rect x={n.x} y={n.y} width={n.width} height={n.height} rx={n.kind === 'store' ? 12 : n.kind.endsWith('topic') ? 15 : group ? 8 : 4} />
                      <text x={n.x + n.width / 2} y={n.y + 7 + 11} text-anchor="middle">
                        {n.lines.map((line, i) => (
                          <tspan key={i} x={n.x + n.width / 2} dy={i === 0 ? 0 : 14}>
                            {group && i === 0 ? `▸ ${line}` : line}
                          </tspan>
                        ))}
                      </text>
                    </g>
                    {figures.length > 0 ? (
                      <text class="figures" data-testid="node-figures" data-of={n.name} aria-hidden="true" x={n.x + n.width / 2} y={n.y + n.height + 11} text-anchor="middle">
                        {figures.map((f, i) => (
                          <tspan key={f.kind} class={f.kind === 'failed' || (f.kind === 'lag' && f.value > 0) ? 'alert' : undefined} data-testid={`node-${f.kind}`} data-value={f.value}>
                            {i === 0 ? f.text : ` · ${f.text}`}
                          </tspan>
                        ))}
                      </text>
                    ) : null}
                  </Fragment>
                );
              })}
            </g>
          </svg>
        </div>
        {selected !== undefined && selectedFacts !== undefined ? (
          <NodePanel
            panelRef={panel}
            height={height}
            id={id}
            facts={selectedFacts}
            rate={live.rates.get(selectedFacts.name)}
            reading={live.reading}
            groupLabel={selectedFacts.group ? model.groups.get(selectedFacts.group)?.label : undefined}
            onClose={close}
          />
        ) : null}
      </div>
      <ul class="legend" data-testid="graph-legend">
        {LEGEND.map(({ kind, text }) => (
          <li key={kind} data-kind={kind}>
            <span class={`swatch node-${kind.toLowerCase()}`} />
            {text}
          </li>
        ))}
      </ul>
    </div>
  );
}
