/**
 * The client's HTTP: one undici Agent (keep-alive connections, TLS options), the Authorization header, and the
 * routes of routes.ts turned into requests. Credentials live in a private field: they are in no message, no
 * property a logger would print, and never in the URL.
 */

import { Agent, type Dispatcher } from 'undici';
import { InvalidClientRequest, ServerUnreachable, UnexpectedResponse } from '../errors';
import { errorFromAnswer } from './errors';
import { fillPath, pathParameters, ROUTES, type RouteName } from './routes';

export interface TlsOptions {
  /** CA certificates (PEM) to trust instead of the system's, e.g. a cluster's own CA. */
  ca?: string | Buffer | (string | Buffer)[];
  /** Client certificate and key (PEM), for a server that asks for mutual TLS. */
  cert?: string | Buffer;
  key?: string | Buffer;
  passphrase?: string;
  /** false accepts any certificate: for tests against self-signed servers only. Default true. */
  rejectUnauthorized?: boolean;
  /** The name the server's certificate must carry, when it is not the URL's host. */
  servername?: string;
}

export interface ClientOptions {
  /** The node's base URL, e.g. `http://localhost:8080`; a path prefix (behind a proxy) is kept. */
  url: string;
  /** An API token (`sluice_...`) or a JWT, sent as `Authorization: Bearer`. */
  token?: string;
  /** HTTP Basic credentials. */
  username?: string;
  password?: string;
  tls?: TlsOptions;
  /** Limit on the wait for an answer's headers and between its bytes, in ms; default 60 000. Not on event streams. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

export interface CallOptions {
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string>>;
  body?: unknown;
  signal?: AbortSignal;
  /** Request headers of the route's own (an event stream's Last-Event-ID). */
  headers?: Readonly<Record<string, string>>;
}

function authorization(options: ClientOptions): string | undefined {
  const { token, username, password } = options;
  if (token !== undefined && (username !== undefined || password !== undefined)) {
    throw new InvalidClientRequest('give either a token or a username and password, not both');
  }
  if (token !== undefined) {
    if (token === '' || /\s/.test(token)) throw new InvalidClientRequest('the token must be non-empty, without spaces');
    return `Bearer ${token}`;
  }
  if (username === undefined && password === undefined) return undefined;
  if (username === undefined || username === '') throw new InvalidClientRequest('a password needs a username');
  if (username.includes(':')) throw new InvalidClientRequest("a username cannot contain ':' (HTTP Basic)");
  if (password === undefined) throw new InvalidClientRequest(`no password for user ${username}`);
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

function baseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidClientRequest(`'${url}' is not a URL; give the node's, e.g. http://localhost:8080`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InvalidClientRequest(`the URL must be http or https, not ${parsed.protocol}`);
  // Credentials in a URL end up in logs and error messages: they go through the options instead.
  if (parsed.username !== '' || parsed.password !== '') throw new InvalidClientRequest('give credentials as options (token, or username and password), not in the URL');
  if (parsed.search !== '' || parsed.hash !== '') throw new InvalidClientRequest('the URL must have no query or fragment');
  return parsed;
}

export class Transport {
  readonly #authorization: string | undefined;
  readonly #agent: Agent;
  readonly #timeoutMs: number;
  /** The base URL, without a trailing slash. */
  readonly url: string;

  constructor(options: ClientOptions) {
    const base = baseUrl(options.url);
    this.#authorization = authorization(options);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new InvalidClientRequest(`timeoutMs must be a positive integer, got ${timeoutMs}`);
    this.#timeoutMs = timeoutMs;
    if (options.tls !== undefined && base.protocol !== 'https:') throw new InvalidClientRequest('TLS options need an https URL');
    this.#agent = new Agent({ connect: options.tls === undefined ? {} : { ...options.tls } });
    this.url = base.href.replace(/\/+$/, '');
  }

  /** Sends a route's request; answers the body text of a success, throws the error body's exception otherwise. */
  async call(route: RouteName, options: CallOptions = {}): Promise<string> {
    const response = await this.send(route, options, this.#timeoutMs);
    const text = await response.body.text();
    const spec = ROUTES[route] as { answeredWith?: readonly number[] };
    if (response.statusCode !== 200 && response.statusCode !== 201 && !spec.answeredWith?.includes(response.statusCode)) {
      throw errorFromAnswer(response.statusCode, text);
    }
    return text;
  }

  async json<T>(route: RouteName, options: CallOptions = {}): Promise<T> {
    const text = await this.call(route, options);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new UnexpectedResponse(`${ROUTES[route].method} ${ROUTES[route].path} answered text that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  /** Opens a route whose answer is a stream (no body timeout): the open response, or the error body's exception. */
  async open(route: RouteName, options: CallOptions): Promise<Dispatcher.ResponseData> {
    const response = await this.send(route, options, 0);
    if (response.statusCode !== 200) throw errorFromAnswer(response.statusCode, await response.body.text());
    return response;
  }

  close(): Promise<void> {
    return this.#agent.close();
  }

  private async send(route: RouteName, options: CallOptions, bodyTimeout: number): Promise<Dispatcher.ResponseData> {
    const spec = ROUTES[route];
    const params = options.params ?? {};
    for (const name of pathParameters(spec.path)) {
      if (typeof params[name] !== 'string' || params[name] === '') throw new InvalidClientRequest(`${name} must be a non-empty string`);
    }
    const query = new URLSearchParams(options.query ?? {}).toString();
    const url = new URL(`${this.url}${fillPath(spec.path, params)}${query === '' ? '' : `?${query}`}`);
    const headers: Record<string, string> = { ...options.headers, accept: spec.answer === 'sse' ? 'text/event-stream' : spec.answer === 'text' ? 'text/plain' : 'application/json' };
    if (this.#authorization !== undefined) headers.authorization = this.#authorization;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: spec.method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const cause = error as NodeJS.ErrnoException;
      throw new ServerUnreachable(this.url, cause.code === undefined ? cause.message : `${cause.code} ${cause.message}`, { cause: error });
    }
  }
}
