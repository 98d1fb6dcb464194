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

/** Kafka Streams' text form of a description, for logs and the CLI. */
export function describeAsText(description: TopologyDescription): string {
  const lines: string[] = ['Topologies:'];
  for (const sub of description.subTopologies) {
    lines.push(`   Sub-topology: ${sub.id}`);
    for (const node of sub.nodes) {
      if (node.type === 'SOURCE') lines.push(`    Source: ${node.name} (topics: [${(node.topics ?? []).join(', ')}])`);
      else if (node.type === 'SINK') lines.push(`    Sink: ${node.name} (topic: ${node.topic ?? ''})`);
      else lines.push(`    Processor: ${node.name} (stores: [${(node.stores ?? []).join(', ')}])`);
      if (node.successors.length > 0) lines.push(`      --> ${node.successors.join(', ')}`);
      else if (node.type !== 'SINK') lines.push('      --> none');
      if (node.predecessors.length > 0) lines.push(`      <-- ${node.predecessors.join(', ')}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
