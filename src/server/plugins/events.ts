/** Server-sent events of a local instance (compatibility file, section 6). */

import type { FastifyPluginAsync } from 'fastify';
import { UnknownEventType } from '../../errors';
import type { InstanceRegistry } from '../context';
import { instanceOrThrow } from '../lookup';
import { applicationIdParams, withErrors, type ApplicationIdParams } from '../schemas/common';
import { eventParams } from '../schemas/streams';
import { EVENT_LOG_HEADER, EventLogs, type EventLogOptions, type ResumeFrom } from '../sse/event-log';
import { EventStream, type EventStreamOptions } from '../sse/event-stream';
import { EVENT_TYPES, eventTypesOf } from '../sse/instance-events';

export interface EventsPluginOptions {
  instances: InstanceRegistry;
  stream: EventStreamOptions;
  log: EventLogOptions;
  metricsIntervalMs: number;
}

const tags = ['events'];

export const eventsPlugin: FastifyPluginAsync<EventsPluginOptions> = async (app, options) => {
  const open = new Set<EventStream>();
  const logs = new EventLogs(options.log, options.metricsIntervalMs);
  // Open streams (and the logs' timers) would keep the server from closing: end them first.
  app.addHook('preClose', async () => {
    for (const stream of [...open]) stream.close();
    logs.close();
  });

  app.get<{ Params: ApplicationIdParams }>('/api/v1/streams/:applicationId/subscriptions', {
    schema: {
      tags,
      summary: 'Event types that can be subscribed to',
      description: `The built-in ${EVENT_TYPES.join(', ')}, then the event types the topology declares.`,
      params: applicationIdParams,
      response: withErrors({ 200: { type: 'array', items: { type: 'string' } } }),
    },
    handler: async (request) => eventTypesOf(instanceOrThrow(options.instances, request.params.applicationId)),
  });

  app.get<{ Params: ApplicationIdParams & { eventType: string } }>('/api/v1/streams/:applicationId/subscribe/:eventType', {
    schema: {
      tags,
      summary: 'Opens a server-sent-events stream of one event type',
      description:
        'Each event is `event: <type>`, `id: <sequence>`, `data: <one-line JSON>`; a comment line every 15 s keeps proxies open. ' +
        `Ids are numbered per instance and event type; a client that comes back with \`Last-Event-ID\` (and the \`${EVENT_LOG_HEADER}\` header the stream answered) ` +
        'gets the events it missed, of the last 1 000 kept, instead of the first event of a new subscriber. ' +
        'On overflow of the per-subscriber queue the oldest events are dropped and a `dropped` event says how many. ' +
        `Built-in types: ${EVENT_TYPES.join(', ')}; a topology's own event types (GET .../subscriptions lists them) send each published record as ` +
        '`{"record": {"key", "value", "timestamp"}}`, keys and values as JSON (bytes as base64).',
      params: eventParams,
      headers: {
        type: 'object',
        properties: {
          'last-event-id': { type: 'string', maxLength: 64 },
          [EVENT_LOG_HEADER]: { type: 'string', maxLength: 64 },
        },
      },
      response: withErrors({
        200: { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      }),
    },
    handler: async (request, reply) => {
      const { applicationId, eventType } = request.params;
      const instance = instanceOrThrow(options.instances, applicationId);
      const types = eventTypesOf(instance);
      if (!types.includes(eventType)) throw new UnknownEventType(applicationId, eventType, types.join(', '));
      const lastEventId = request.headers['last-event-id'];
      const logHeader = request.headers[EVENT_LOG_HEADER];
      const resume: ResumeFrom | undefined =
        typeof lastEventId === 'string' ? { lastEventId, log: typeof logHeader === 'string' ? logHeader : undefined } : undefined;
      reply.hijack();
      const headers = {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        // Keeps nginx-style proxies from buffering the stream.
        'x-accel-buffering': 'no',
      };
      // HEAD (which fastify serves with the GET handler) gets the headers alone, at once: a stream would never end.
      if (request.method === 'HEAD') {
        reply.raw.writeHead(200, headers);
        reply.raw.end();
        return;
      }
      const log = logs.logOf(instance, eventType);
      reply.raw.writeHead(200, { ...headers, [EVENT_LOG_HEADER]: log.id });
      reply.raw.flushHeaders();
      const stream = new EventStream(reply.raw, options.stream);
      open.add(stream);
      stream.onClose(() => open.delete(stream));
      reply.raw.once('close', () => stream.close());
      log.join(stream, resume);
    },
  });
};
