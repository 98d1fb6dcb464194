/** Schema of `GET /api/v1/topologies`. */

import { stringArray } from './common';

export const topologies = {
  type: 'array',
  description: 'One entry per registered topology version',
  items: {
    type: 'object',
    required: ['name', 'version', 'description', 'aliases'],
    properties: {
      name: { type: 'string', description: 'Fully qualified name' },
      version: { type: 'string' },
      description: { type: 'string' },
      aliases: stringArray,
    },
  },
} as const;
