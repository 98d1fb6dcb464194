/** The topology DAG (`GET /api/v1/applications/{id}/topology`, `GET /api/v1/streams/{id}/topology`). */

import { stringArray } from './common';

const node = {
  type: 'object',
  required: ['type', 'name', 'predecessors', 'successors'],
  properties: {
    type: { type: 'string', enum: ['SOURCE', 'PROCESSOR', 'SINK'] },
    name: { type: 'string' },
    predecessors: stringArray,
    successors: stringArray,
    topics: { ...stringArray, description: 'Sources: topic names, or a pattern as /regex/' },
    topic: { type: 'string', description: 'Sinks: the topic, or <dynamic>' },
    stores: { ...stringArray, description: 'Processors: the connected stores' },
  },
} as const;

export const topologyDag = {
  type: 'object',
  required: ['subTopologies', 'globalStores'],
  properties: {
    subTopologies: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'nodes'],
        properties: { id: { type: 'integer' }, nodes: { type: 'array', description: 'In flow order, sources first', items: node } },
      },
    },
    globalStores: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'source', 'processor'],
        properties: { id: { type: 'integer' }, source: node, processor: node },
      },
    },
  },
} as const;
