/** `/health` and the Kubernetes probes beside it (compatibility file, section 4). */

import type { FastifyPluginAsync } from 'fastify';
import type { InstanceRegistry } from '../context';
import { healthReport, isLive, isReady } from '../representations/health';
import type { SluiceRouteConfig } from '../route-config';
import * as schemas from '../schemas/health';
import { withErrors } from '../schemas/common';

const tags = ['health'];
const publicRoute: SluiceRouteConfig = { public: true };

export const healthPlugin: FastifyPluginAsync<{ instances: InstanceRegistry }> = async (app, { instances }) => {
  app.get('/health', {
    config: publicRoute,
    schema: {
      tags,
      summary: 'Health of every instance; 503 when the aggregate is DOWN',
      response: withErrors({ 200: schemas.healthReport, 503: schemas.healthReport }),
    },
    handler: async (_request, reply) => {
      const report = healthReport(instances.list());
      return reply.code(report.status === 'DOWN' ? 503 : 200).send(report);
    },
  });

  app.get('/health/liveness', {
    config: publicRoute,
    schema: {
      tags,
      summary: 'Liveness probe: 503 only when an instance is in ERROR',
      response: withErrors({ 200: schemas.probe, 503: schemas.probe }),
    },
    handler: async (_request, reply) => {
      const live = isLive(instances.list());
      return reply.code(live ? 200 : 503).send({ status: live ? 'UP' : 'DOWN' });
    },
  });

  app.get('/health/readiness', {
    config: publicRoute,
    schema: {
      tags,
      summary: 'Readiness probe: 200 once every instance has reached RUNNING since its last start',
      response: withErrors({ 200: schemas.probe, 503: schemas.probe }),
    },
    handler: async (_request, reply) => {
      const ready = isReady(instances.list());
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'UP' : 'DOWN' });
    },
  });
};
