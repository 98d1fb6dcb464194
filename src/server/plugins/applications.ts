/** `/api/v1/applications`: the application across the cluster, its topology, and its stores' queries. */

import type { FastifyPluginAsync } from 'fastify';
import { NoLocalInstance } from '../../errors';
import type { InstanceRegistry, StoreQueries } from '../context';
import { instanceOrThrow } from '../lookup';
import { applicationResource } from '../representations/application';
import * as schemas from '../schemas/applications';
import { applicationIdParams, withErrors, type ApplicationIdParams } from '../schemas/common';
import { applicationIds } from '../schemas/streams';
import { topologyDag } from '../schemas/topology';

export interface ApplicationsPluginOptions {
  instances: InstanceRegistry;
  queries: StoreQueries;
}

const tags = ['applications'];
const BASE = '/api/v1/applications';

type StoreParams = ApplicationIdParams & { name: string };

/**
 * Query answers are serialized with JSON.stringify, not compiled from their schema: records hold any JSON, for
 * which the compiled serializer calls JSON.stringify once per key and value (4x slower on 100 000 records). The
 * answers are built by the query layer in the schema's shape, which the route tests check.
 */
const plainJson = () => (data: unknown) => JSON.stringify(data);

export const applicationsPlugin: FastifyPluginAsync<ApplicationsPluginOptions> = async (app, { instances, queries }) => {
  app.get(BASE, {
    schema: { tags, summary: 'Application ids of the instances of this process', response: withErrors({ 200: applicationIds }) },
    handler: async () => instances.list().map((instance) => instance.id),
  });

  app.get<{ Params: ApplicationIdParams }>(`${BASE}/:applicationId`, {
    schema: {
      tags,
      summary: 'Every process of the application: endpoints, assignments and stores',
      params: applicationIdParams,
      response: withErrors({ 200: schemas.application }),
    },
    handler: async (request) => applicationResource(instanceOrThrow(instances, request.params.applicationId)),
  });

  app.get<{ Params: ApplicationIdParams }>(`${BASE}/:applicationId/topology`, {
    schema: { tags, summary: 'The topology DAG', params: applicationIdParams, response: withErrors({ 200: topologyDag }) },
    handler: async (request) => instanceOrThrow(instances, request.params.applicationId).describe(),
  });

  /** The query needs a running local instance to plan and answer it. */
  const execute = (params: StoreParams, body: unknown) => {
    const instance = instanceOrThrow(instances, params.applicationId);
    if (instance.view === undefined) throw new NoLocalInstance(instance.id, instance.state);
    return queries.execute(params.applicationId, params.name, body);
  };

  app.post<{ Params: StoreParams; Body: unknown }>(`${BASE}/:applicationId/stores/:name`, {
    serializerCompiler: plainJson,
    schema: {
      tags,
      summary: 'Interactive query of a state store',
      params: schemas.storeParams,
      body: schemas.storeQueryBody,
      response: withErrors({ 200: schemas.storeQueryResult }),
    },
    handler: async (request) => execute(request.params, request.body),
  });

  app.post<{ Params: StoreParams; Body: unknown }>(`${BASE}/:applicationId/stores/:name/records`, {
    serializerCompiler: plainJson,
    schema: {
      tags,
      summary: 'Interactive query of a state store, answering only the records',
      params: schemas.storeParams,
      body: schemas.storeQueryBody,
      response: withErrors({ 200: schemas.storeRecords }),
    },
    handler: async (request) => (await execute(request.params, request.body)).result.success.flatMap((part) => part.records),
  });
};
