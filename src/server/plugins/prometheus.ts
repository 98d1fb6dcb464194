/** `GET /prometheus`: the whole process for a scraper, Node's process metrics and every running instance's. */

import type { FastifyPluginAsync } from 'fastify';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type ApplicationMetrics } from '../../streams/metrics/prometheus';
import type { InstanceRegistry } from '../context';
import { plainText, withErrors } from '../schemas/common';

/** The metrics of every instance that runs, as `/prometheus` writes them (and the OTLP export sends them). */
export function applicationMetrics(instances: InstanceRegistry): ApplicationMetrics[] {
  const applications: ApplicationMetrics[] = [];
  for (const instance of instances.list()) {
    if (instance.view) applications.push({ applicationId: instance.id, snapshots: instance.view.metrics.metrics() });
  }
  return applications;
}

export const prometheusPlugin: FastifyPluginAsync<{ instances: InstanceRegistry }> = async (app, { instances }) => {
  app.get('/prometheus', {
    schema: {
      tags: ['metrics'],
      summary: 'Prometheus text exposition 0.0.4 of the process and its instances',
      response: withErrors({ 200: plainText('Prometheus text exposition format 0.0.4') }),
    },
    handler: async (_request, reply) => {
      return reply.type(PROMETHEUS_CONTENT_TYPE).send(await renderPrometheus(applicationMetrics(instances), { includeProcessMetrics: true }));
    },
  });
};
