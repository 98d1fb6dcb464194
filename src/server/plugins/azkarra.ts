/**
 * Azkarra's routes beside the contract, so that tools written for Azkarra keep working: `/version`, `/info`,
 * `/api/v1` (`{"headless": …}`), `/api/v1/context` and `/api/v1/environments`. Azkarra hosts several environments
 * (named sets of streams configuration) in one process; a Sluice node is exactly one, `__default`, whose configuration
 * is the node's `streams` section.
 */

import type { FastifyPluginAsync } from 'fastify';
import { EnvironmentNotCreatable } from '../../errors';
import type { AccessPolicy } from '../access';
import type { InstanceRegistry, NodeContext } from '../context';
import { visibleConfig } from '../representations/config';
import type { SluiceRouteConfig } from '../route-config';
import * as schemas from '../schemas/azkarra';
import { withErrors } from '../schemas/common';

export interface AzkarraPluginOptions {
  instances: InstanceRegistry;
  node: NodeContext;
  access: AccessPolicy;
  version: string;
}

export const DEFAULT_ENVIRONMENT = '__default';

const tags = ['azkarra'];
const DESCRIPTION = 'Stream processing on Apache Kafka from TypeScript, with Kafka Streams semantics and a management API';

export const azkarraPlugin: FastifyPluginAsync<AzkarraPluginOptions> = async (app, { instances, node, access, version }) => {
  const environment = () => ({
    name: DEFAULT_ENVIRONMENT,
    state: 'RUNNING',
    config: visibleConfig(node.streamsConfig()),
    applications: instances.list().map((instance) => instance.id),
    default: true,
  });

  app.get('/version', {
    schema: { tags, summary: 'Version (Azkarra shape)', response: withErrors({ 200: schemas.version }) },
    handler: async () => ({ azkarraVersion: version, sluiceVersion: version, commitId: 'unknown', branch: 'unknown' }),
  });

  app.get('/info', {
    schema: { tags, summary: 'What this service is (Azkarra shape)', response: withErrors({ 200: schemas.info }) },
    handler: async () => ({ app: { name: 'sluice', version, description: DESCRIPTION } }),
  });

  app.get('/api/v1', {
    schema: { tags, summary: 'Whether the node is headless (Azkarra shape)', response: withErrors({ 200: schemas.apiRoot }) },
    handler: async () => ({ headless: access.headless }),
  });

  app.get('/api/v1/context', {
    schema: { tags, summary: "The node's configuration (Azkarra shape), secrets hidden", response: withErrors({ 200: schemas.context }) },
    handler: async () => ({ config: { streams: visibleConfig(node.streamsConfig()) } }),
  });

  app.get('/api/v1/environments', {
    schema: { tags, summary: 'The one environment of this node (Azkarra shape)', response: withErrors({ 200: schemas.environments }) },
    handler: async () => [environment()],
  });

  const mutates: SluiceRouteConfig = { mutates: true };
  app.post<{ Body: schemas.EnvironmentBody }>('/api/v1/environments', {
    config: mutates,
    schema: {
      tags,
      summary: 'Azkarra creates an environment; a Sluice node has only __default',
      description: `Answers the environment for {"name": "${DEFAULT_ENVIRONMENT}"} without config; any other name, or a config, is a 409 EnvironmentNotCreatable.`,
      body: schemas.environmentBody,
      response: withErrors({ 200: schemas.environment }),
    },
    handler: async (request) => {
      const { name, config } = request.body;
      if (name !== DEFAULT_ENVIRONMENT || Object.keys(config ?? {}).length > 0) throw new EnvironmentNotCreatable(name);
      return environment();
    },
  });
};
