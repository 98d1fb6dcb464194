/** The DAG of a topology as `describe()` gives it and the API serves it (compatibility file, section 3). */
export interface TopologyDescription {
  subTopologies: SubtopologyDescription[];
  globalStores: GlobalStoreDescription[];
}

export interface SubtopologyDescription {
  id: number;
  nodes: NodeDescription[];
}

export interface NodeDescription {
  type: 'SOURCE' | 'PROCESSOR' | 'SINK';
  name: string;
  predecessors: string[];
  successors: string[];
  /** Sources: topic names, or the pattern as `/regex/`. */
  topics?: string[];
  /** Sinks: the topic, or `<dynamic>` when chosen per record. */
  topic?: string;
  /** Processors: the connected stores. */
  stores?: string[];
}

export interface GlobalStoreDescription {
  id: number;
  source: NodeDescription;
  processor: NodeDescription;
}

/**
 * Kafka Streams' text form of a description (`TopologyDescription.toString()`), character for character: for logs,
 * the CLI and the `topology-description` metric. Nodes are listed as Kafka Streams sorts them: by the size of the
 * sub-graph below them, largest first, then by name; successors and predecessors in the description's order.
 */
export function describeAsText(description: TopologyDescription): string {
  const parts: { id: number; text: string }[] = description.subTopologies.map((sub) => {
    const order = nodeOrder(sub.nodes);
    const nodes = [...sub.nodes].sort(order.compare).map((node) => `    ${nodeText(node, order.names)}\n`);
    return { id: sub.id, text: `  Sub-topology: ${sub.id}\n${nodes.join('')}\n` };
  });
  for (const global of description.globalStores) {
    const order = nodeOrder([global.source, global.processor]);
    const nodes = [global.source, global.processor].map((node) => `    ${nodeText(node, order.names)}\n`);
    parts.push({ id: global.id, text: `  Sub-topology: ${global.id} for global store (will not generate tasks)\n${nodes.join('')}` });
  }
  return `Topologies:\n ${parts.sort((a, b) => a.id - b.id).map((part) => part.text).join('')}`;
}

function nodeText(node: NodeDescription, names: (list: readonly string[]) => string): string {
  if (node.type === 'SOURCE') return `Source: ${node.name} (topics: [${(node.topics ?? []).join(', ')}])\n      --> ${names(node.successors)}`;
  if (node.type === 'SINK') return `Sink: ${node.name} (topic: ${node.topic ?? ''})\n      <-- ${names(node.predecessors)}`;
  return `Processor: ${node.name} (stores: [${(node.stores ?? []).join(', ')}])\n      --> ${names(node.successors)}\n      <-- ${names(node.predecessors)}`;
}

/** Kafka Streams' node order: a node's size is 1 plus its successors' sizes. */
function nodeOrder(nodes: readonly NodeDescription[]): { compare: (a: NodeDescription, b: NodeDescription) => number; names: (list: readonly string[]) => string } {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const sizes = new Map<string, number>();
  const size = (name: string): number => {
    let known = sizes.get(name);
    if (known === undefined) {
      known = 1 + (byName.get(name)?.successors ?? []).reduce((sum, child) => sum + size(child), 0);
      sizes.set(name, known);
    }
    return known;
  };
  return {
    compare: (a, b) => size(b.name) - size(a.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    names: (list) => (list.length === 0 ? 'none' : list.join(', ')),
  };
}
