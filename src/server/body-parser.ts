/**
 * Request bodies are JSON whatever the Content-Type says (compatibility file, section 1), and an empty body
 * counts as `{}`. Malformed JSON is a 400 with the catalogue's `MalformedJson`.
 */

import type { FastifyInstance } from 'fastify';
import { MalformedJson } from '../errors';

export function parseEveryBodyAsJson(app: FastifyInstance): void {
  // fastify's own parser guards against prototype poisoning; it is reused for the non-empty case.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, {});
      return;
    }
    json(request, text, (error, value) => {
      if (error) done(new MalformedJson(syntaxErrorOf(text) ?? error.message), undefined);
      else done(null, value);
    });
  });
  // A request without a body (no Content-Length, no chunks) is never parsed; routes that take one see `{}` too.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = {};
    done();
  });
}

/** JSON.parse's own words for what is wrong (fastify's parser only says that something is). */
function syntaxErrorOf(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
