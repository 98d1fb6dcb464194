/** `/api/v1/streams`: the local instances, their resources and their lifecycle (compatibility file, section 2). */

import type { FastifyPluginAsync } from 'fastify';
import { clusterTimeline, type TimelinePeers } from '../../cluster';
import { metricGroupsJson } from '../../streams/metrics/metrics-json';
import type { MetricsFilter } from '../../streams/metrics/metrics-registry';
import { PROMETHEUS_CONTENT_TYPE, renderStreamsPrometheus } from '../../streams/metrics/prometheus';
import type { DeployRequest, InstanceRegistry } from '../context';
import { checkDeployConfig } from '../deploy-config';
import { LagSampler } from '../lag-history';
import { instanceOrThrow } from '../lookup';
import { localMetadataResource } from '../representations/application';
import { visibleConfig } from '../representations/config';
import {
  actionResource,
  instanceResource,
  offsetsResource,
  statusResource,
  storesResource,
} from '../representations/instance';
import { metricValueText, selectMetrics, withoutEmpty } from '../representations/metrics';
import { clusterTimelineResource, timelineEntryJson, timelineResource, unreadableEntry } from '../representations/timeline';
import type { SluiceRouteConfig } from '../route-config';
import { applicationInstance } from '../schemas/applications';
import { applicationIdParams, plainText, withErrors, type ApplicationIdParams } from '../schemas/common';
import * as schemas from '../schemas/streams';
import { topologyDag } from '../schemas/topology';

export interface StreamsPluginOptions {
  instances: InstanceRegistry;
  /** How the cluster's timeline asks the other nodes; none: they are named as failures. */
  peers?: TimelinePeers;
}

/** How long the cluster's timeline waits for the other nodes: a console refreshes it every 10 s. */
const CLUSTER_TIMELINE_DEADLINE_MS = 5000;

const NO_PEERS: TimelinePeers = {
  timeline: async () => ({ ok: false, messages: ['this node does not call its peers'], kind: 'NOT_AVAILABLE', timedOut: false }),
};

const tags = ['streams'];
const BASE = '/api/v1/streams';
const INSTANCE = `${BASE}/:applicationId`;

interface MetricParams extends ApplicationIdParams {
  group?: string;
  name?: string;
}

export const streamsPlugin: FastifyPluginAsync<StreamsPluginOptions> = async (app, { instances, peers = NO_PEERS }) => {
  const mutates: SluiceRouteConfig = { mutates: true };
  const lag = new LagSampler(instances);
  app.addHook('onReady', async () => lag.start());
  app.addHook('onClose', async () => lag.stop());

  app.get(BASE, {
    schema: { tags, summary: 'Application ids of the instances of this process', response: withErrors({ 200: schemas.applicationIds }) },
    handler: async () => instances.list().map((instance) => instance.id),
  });

  app.post<{ Body: DeployRequest }>(BASE, {
    config: mutates,
    schema: {
      tags,
      summary: 'Starts a new local instance of a registered topology',
      body: schemas.deployBody,
      response: withErrors({ 201: schemas.deployed }),
    },
    handler: async (request, reply) => {
      checkDeployConfig(request.body.config);
      const id = await instances.deploy(request.body);
      return reply.code(201).send({ id });
    },
  });

  app.get<{ Params: ApplicationIdParams }>(INSTANCE, {
    schema: { tags, summary: 'The instance', params: applicationIdParams, response: withErrors({ 200: schemas.instance }) },
    handler: async (request) => instanceResource(instanceOrThrow(instances, request.params.applicationId)),
  });

  app.delete<{ Params: ApplicationIdParams }>(INSTANCE, {
    config: mutates,
    schema: {
      tags,
      summary: 'Stops the instance, removes its local state and forgets it',
      params: applicationIdParams,
      response: withErrors({ 200: schemas.action }),
    },
    handler: async (request) => {
      const { applicationId } = request.params;
      await instances.remove(applicationId);
      return { id: applicationId, state: 'STOPPED' };
    },
  });

  app.get<{ Params: ApplicationIdParams }>(`${INSTANCE}/status`, {
    schema: { tags, summary: 'Threads and tasks', params: applicationIdParams, response: withErrors({ 200: schemas.status }) },
    handler: async (request) => statusResource(instanceOrThrow(instances, request.params.applicationId)),
  });

  app.get<{ Params: ApplicationIdParams }>(`${INSTANCE}/config`, {
    schema: { tags, summary: 'Configuration, secrets hidden', params: applicationIdParams, response: withErrors({ 200: schemas.config }) },
    handler: async (request) => visibleConfig(instanceOrThrow(instances, request.params.applicationId).config),
  });

  app.get<{ Params: ApplicationIdParams }>(`${INSTANCE}/offsets`, {
    schema: { tags, summary: 'Consumer positions and lag', params: applicationIdParams, response: withErrors({ 200: schemas.offsets }) },
    handler: async (request) => {
      const instance = instanceOrThrow(instances, request.params.applicationId);
      return offsetsResource(instance.id, await instance.view?.offsets());
    },
  });

  app.get<{ Params: ApplicationIdParams; Querystring: schemas.LagHistoryQuery }>(`${INSTANCE}/offsets/history`, {
    schema: {
      tags,
      summary: "Lag over time, per topic and for the group: the node's samples every 10 s for the last hour, per minute for 24 h (Sluice's, beyond the contract)",
      params: applicationIdParams,
      querystring: schemas.lagHistoryQuery,
      response: withErrors({ 200: schemas.lagHistory }),
    },
    handler: async (request) => {
      const instance = instanceOrThrow(instances, request.params.applicationId);
      return lag.history(instance.id).resource(request.query.range, Date.now());
    },
  });

  app.get<{ Params: ApplicationIdParams; Querystring: schemas.TimelineQuery }>(`${INSTANCE}/timeline`, {
    schema: {
      tags,
      summary:
        "The rebalances this node took part in, with their causes as far as the node can know them and the tasks moved, and its restores; the last 200. With scope=cluster, every node's of the application, merged (Sluice's, beyond the contract)",
      params: applicationIdParams,
      querystring: schemas.timelineQuery,
      response: withErrors({ 200: schemas.timeline }),
    },
    handler: async (request) => {
      const instance = instanceOrThrow(instances, request.params.applicationId);
      if (request.query.scope === 'local') return timelineResource(instance.id, instance.view?.timeline());
      const merged = await clusterTimeline({
        applicationId: instance.id,
        hosts: instance.view?.allMetadata() ?? [],
        local: { server: String(instance.config['application.server'] ?? 'this node'), entries: (instance.view?.timeline() ?? []).map(timelineEntryJson) },
        peers,
        deadline: Date.now() + CLUSTER_TIMELINE_DEADLINE_MS,
        unreadable: unreadableEntry,
      });
      return clusterTimelineResource(instance.id, merged);
    },
  });

  const metricsResponse = withErrors({
    200: {
      description: 'Metric groups (JSON), or the Prometheus text exposition with format=prometheus',
      content: { 'application/json': { schema: schemas.metricGroups }, 'text/plain': { schema: { type: 'string' } } },
    },
  });
  const metricsRoute = (url: string, params: object, summary: string, filter: (p: MetricParams) => MetricsFilter) =>
    app.get<{ Params: MetricParams; Querystring: schemas.MetricsQuery }>(url, {
      schema: { tags, summary, params, querystring: schemas.metricsQuery, response: metricsResponse },
      handler: async (request, reply) => {
        const instance = instanceOrThrow(instances, request.params.applicationId);
        const filterEmpty = request.query.filter_empty !== undefined;
        const snapshots = selectMetrics(instance, filter(request.params));
        if (request.query.format === 'prometheus') {
          const selected = filterEmpty ? withoutEmpty(snapshots) : snapshots;
          return reply.type(PROMETHEUS_CONTENT_TYPE).send(renderStreamsPrometheus([{ applicationId: instance.id, snapshots: selected }]));
        }
        return reply.type('application/json; charset=utf-8').send(metricGroupsJson(snapshots, { filterEmpty }));
      },
    });
  metricsRoute(`${INSTANCE}/metrics`, applicationIdParams, 'Metrics', () => ({}));
  metricsRoute(`${INSTANCE}/metrics/group/:group`, schemas.metricGroupParams, 'Metrics of a group', (p) => ({ group: p.group }));
  // `name` is the contract's spelling, `metric` Azkarra's.
  for (const segment of ['name', 'metric']) {
    metricsRoute(`${INSTANCE}/metrics/group/:group/${segment}/:name`, schemas.metricNameParams, 'Metrics of a group and name', (p) => ({
      group: p.group,
      name: p.name,
    }));
    app.get<{ Params: Required<MetricParams> }>(`${INSTANCE}/metrics/group/:group/${segment}/:name/value`, {
      schema: {
        tags,
        summary: 'Current value of a metric (the first match)',
        params: schemas.metricNameParams,
        response: withErrors({ 200: plainText('The value: a number, NaN before any measurement, or text') }),
      },
      handler: async (request, reply) => {
        const { applicationId, group, name } = request.params;
        const snapshots = selectMetrics(instanceOrThrow(instances, applicationId), { group, name });
        return reply.type('text/plain; charset=utf-8').send(metricValueText(snapshots));
      },
    });
  }

  app.post<{ Params: ApplicationIdParams }>(`${INSTANCE}/restart`, {
    config: mutates,
    schema: {
      tags,
      summary: 'Restarts the instance from the same topology and configuration (asynchronous)',
      params: applicationIdParams,
      response: withErrors({ 200: schemas.action }),
    },
    handler: async (request) => {
      return actionResource(instances.restart(request.params.applicationId));
    },
  });

  // DELETE is the contract's method, POST Azkarra's.
  for (const method of ['DELETE', 'POST'] as const) {
    app.route<{ Params: ApplicationIdParams; Body: schemas.StopBody }>({
      method,
      url: `${INSTANCE}/stop`,
      config: mutates,
      schema: {
        tags,
        summary: 'Stops the instance; it stays listed in state STOPPED and can be restarted',
        params: applicationIdParams,
        body: schemas.stopBody,
        response: withErrors({ 200: schemas.action }),
      },
      handler: async (request) => {
        const stopped = await instances.stop(request.params.applicationId, { cleanup: request.body.cleanup === true, leaveGroup: request.body.leaveGroup === true });
        return actionResource(stopped);
      },
    });
  }

  app.get<{ Params: ApplicationIdParams }>(`${INSTANCE}/topology`, {
    schema: { tags, summary: 'The topology DAG', params: applicationIdParams, response: withErrors({ 200: topologyDag }) },
    handler: async (request) => instanceOrThrow(instances, request.params.applicationId).describe(),
  });

  app.get<{ Params: ApplicationIdParams }>(`${INSTANCE}/stores`, {
    schema: {
      tags,
      summary: 'Store partitions: offsets, lag and the last restoration',
      params: applicationIdParams,
      response: withErrors({ 200: schemas.storeStatus }),
    },
    handler: async (request) => {
      const instance = instanceOrThrow(instances, request.params.applicationId);
      return storesResource((await instance.view?.storeStatus()) ?? []);
    },
  });

  app.get<{ Params: ApplicationIdParams }>(`${INSTANCE}/metadata`, {
    schema: {
      tags,
      summary: "This process's entry of the application record",
      params: applicationIdParams,
      response: withErrors({ 200: applicationInstance }),
    },
    handler: async (request) => localMetadataResource(instanceOrThrow(instances, request.params.applicationId)),
  });
};
