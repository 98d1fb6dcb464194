/** `GET /api/v1/topologies`: the registered topology versions. */

import type { FastifyPluginAsync } from 'fastify';
import type { InstanceRegistry } from '../context';
import { withErrors } from '../schemas/common';
import { topologies } from '../schemas/topologies';

export const topologiesPlugin: FastifyPluginAsync<{ instances: InstanceRegistry }> = async (app, { instances }) => {
  app.get('/api/v1/topologies', {
    schema: { tags: ['topologies'], summary: 'Topologies available in this process', response: withErrors({ 200: topologies }) },
    handler: async () => instances.topologies(),
  });
};
