/** `GET /ui/model`: what the web console needs to know beside the API's resources. */

import { stringArray } from './common';

export const consoleModel = {
  type: 'object',
  required: ['version', 'user', 'role', 'headless', 'canChange', 'applications', 'storeTypes', 'options'],
  properties: {
    version: { type: 'string' },
    user: { type: ['string', 'null'], description: 'Who is looking; null when the API takes no credentials' },
    role: { type: ['string', 'null'], enum: ['viewer', 'operator', null] },
    headless: { type: 'boolean' },
    canChange: { type: 'boolean', description: 'Whether restart and stop are offered' },
    applications: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'stores'],
        properties: {
          id: { type: 'string' },
          stores: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'type'],
              properties: {
                name: { type: 'string' },
                type: { type: ['string', 'null'], description: 'null while no partition of the store is open on this node' },
              },
            },
          },
        },
      },
    },
    storeTypes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'clauses'],
        properties: {
          type: { type: 'string' },
          clauses: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'params', 'optional'],
              properties: { name: { type: 'string' }, params: stringArray, optional: { ...stringArray, description: 'The params that may be left out' } },
            },
          },
        },
      },
    },
    options: { ...stringArray, description: 'The set_options keys' },
  },
} as const;
