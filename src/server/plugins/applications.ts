/** `/api/v1/applications`: the application across the cluster, its topology, and its stores' queries. */

import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { NoLocalInstance } from '../../errors';
import type { InstanceRegistry, StoreQueries, StoreQueryAnswer } from '../context';
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
 * Query answers come from the query layer as JSON text in the schema's shape (the route tests check it), never as
 * objects to serialize here. Sends a query's body: a small one in one piece; a large one as a stream (chunked transfer encoding) that fastify
 * pipes to the socket, which pulls the next chunk only once the socket has drained, so a slow client slows the
 * store reads and the peers' streams instead of filling memory. A client that goes away destroys the stream, which
 * returns the body and so ends its reads and peer calls.
 */
async function sendAnswer(reply: FastifyReply, answer: StoreQueryAnswer): Promise<FastifyReply> {
  reply.type('application/json; charset=utf-8');
  if ('text' in answer) return reply.send(answer.text);
  if (!answer.streamed) return reply.send(await collect(answer.body));
  return reply.send(Readable.from(answer.body, { objectMode: false, highWaterMark: 64 * 1024 }));
}

async function collect(body: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of body) text += chunk;
  return text;
}

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
  const execute = async (reply: FastifyReply, params: StoreParams, body: unknown, recordsOnly: boolean) => {
    const instance = instanceOrThrow(instances, params.applicationId);
    if (instance.view === undefined) throw new NoLocalInstance(instance.id, instance.state);
    return sendAnswer(reply, await queries.stream(params.applicationId, params.name, body, { recordsOnly }));
  };

  app.post<{ Params: StoreParams; Body: unknown }>(`${BASE}/:applicationId/stores/:name`, {
    schema: {
      tags,
      summary: 'Interactive query of a state store',
      params: schemas.storeParams,
      body: schemas.storeQueryBody,
      response: withErrors({ 200: schemas.storeQueryResult }),
    },
    handler: async (request, reply) => execute(reply, request.params, request.body, false),
  });

  app.post<{ Params: StoreParams; Body: unknown }>(`${BASE}/:applicationId/stores/:name/records`, {
    schema: {
      tags,
      summary: 'Interactive query of a state store, answering only the records',
      params: schemas.storeParams,
      body: schemas.storeQueryBody,
      response: withErrors({ 200: schemas.storeRecords }),
    },
    handler: async (request, reply) => execute(reply, request.params, request.body, true),
  });
};
