/** The routes Azkarra serves beside the contract (`/version`, `/info`, `/api/v1`, `/api/v1/context`, `/api/v1/environments`). */

import { configMap, stringArray } from './common';

export const version = {
  type: 'object',
  required: ['azkarraVersion', 'sluiceVersion', 'commitId', 'branch'],
  properties: {
    azkarraVersion: { type: 'string', description: "Sluice's version, where Azkarra's tools look for one" },
    sluiceVersion: { type: 'string' },
    commitId: { type: 'string', description: 'unknown: a Sluice build does not record its commit' },
    branch: { type: 'string', description: 'unknown: a Sluice build does not record its branch' },
  },
} as const;

export const info = {
  type: 'object',
  required: ['app'],
  properties: {
    app: {
      type: 'object',
      required: ['name', 'version', 'description'],
      properties: { name: { type: 'string' }, version: { type: 'string' }, description: { type: 'string' } },
    },
  },
} as const;

export const apiRoot = {
  type: 'object',
  required: ['headless'],
  properties: { headless: { type: 'boolean', description: 'Whether instances cannot be changed through the API' } },
} as const;

export const context = {
  type: 'object',
  required: ['config'],
  properties: {
    config: {
      type: 'object',
      required: ['streams'],
      properties: { streams: { ...configMap, description: "The node's streams configuration; secret values shown as [hidden]" } },
    },
  },
} as const;

export const environment = {
  type: 'object',
  required: ['name', 'state', 'config', 'applications', 'default'],
  properties: {
    name: { type: 'string', description: 'Always __default: a Sluice node is one environment' },
    state: { type: 'string', enum: ['RUNNING'] },
    config: { ...configMap, description: "The node's streams configuration, which every instance starts from; secrets shown as [hidden]" },
    applications: { ...stringArray, description: 'Application ids of the instances of this node' },
    default: { type: 'boolean' },
  },
} as const;

export const environments = { type: 'array', items: environment } as const;

export const environmentBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    config: { type: 'object', description: 'Refused unless empty: the environment is configured by the node\'s configuration file' },
  },
} as const;

export interface EnvironmentBody {
  name: string;
  config?: Record<string, unknown>;
}
