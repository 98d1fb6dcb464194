/**
 * What Node's HTTP parser refuses before fastify sees a request, answered with the documented error body too:
 * headers (or a request line) over the size limit are 431, a request whose headers or body do not arrive within
 * the timeouts is 408, anything malformed (an unknown method, a broken request line) is 400; a CONNECT, which
 * Node hands to no route, is 404. These are written to the socket as they are, since no reply object exists.
 */

import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { HeadersTooLarge, InvalidRequest, RequestTimeout, RouteNotFound, type SluiceError } from '../errors';
import { errorBody } from './error-handling';

function catalogued(error: ConnectionError): SluiceError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLarge({ cause: error });
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new RequestTimeout({ cause: error });
  return new InvalidRequest(`Malformed HTTP request (${error.code})`, { cause: error });
}

/** The request path: from the request when the parser got that far, else from the request line it had, else ''. */
function pathOf(error: ConnectionError, request: IncomingMessage | undefined): string {
  // A Buffer at run time, whatever fastify's type says.
  const raw: unknown = error.rawPacket;
  const line = /^[A-Za-z]+ ([^ \r\n]+) HTTP\/\d\.\d\r?\n/.exec(Buffer.isBuffer(raw) ? raw.toString('latin1') : '');
  const url = request?.url ?? line?.[1] ?? '';
  return url.split('?')[0]!;
}

function writeError(socket: Duplex, error: SluiceError, path: string): void {
  const body = errorBody(error, path);
  const text = JSON.stringify(body);
  socket.write(
    `HTTP/1.1 ${body.error_code} ${STATUS_CODES[body.error_code]}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/** fastify's `clientErrorHandler`: the server's 'clientError' listener. */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  // The client went away: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // As Node does: an answer only while no response of this connection has begun (a request timeout may strike
  // while a handler waits for the body, before it has written anything).
  const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !response?.headersSent) writeError(socket, catalogued(error), pathOf(error, response?.req));
  socket.destroy(error);
}

/** Answers CONNECT, which Node gives to 'connect' listeners and, without one, drops without a word. */
export function answerConnect(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    writeError(socket, new RouteNotFound('CONNECT', request.url ?? ''), request.url ?? '');
    socket.destroy();
  });
}
