/**
 * An in-process stand-in for a Schema Registry in unit tests: the part of Confluent's REST API that the serdes' client
 * calls (register, look up by id, by subject and schema, a subject's latest), ids shared across subjects as Confluent
 * gives them, HTTP basic auth, https when given a key and certificate, and an outage switch. Integration tests use a
 * real registry instead.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { SerdeNotReady } from '../../../../errors';

export interface RegistryDoubleOptions {
  /** `user:password` pairs that may call it; without, anyone may. */
  users?: readonly string[];
  /** Serve https with this key and certificate (PEM); `ca` given: clients must present a certificate it signed. */
  tls?: { key: string; cert: string; ca?: string };
}

interface Stored {
  id: number;
  schemaType: string;
  schema: string;
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export class RegistryDouble {
  /** Every request, as `METHOD path` (query string left off). */
  readonly requests: string[] = [];
  private readonly schemas: Stored[] = [];
  private readonly subjects = new Map<string, number[]>();
  private server: http.Server | undefined;
  private down = false;
  private users: readonly string[] | undefined;

  constructor(private readonly options: RegistryDoubleOptions = {}) {
    this.users = options.users;
  }

  /** Starts listening on a free port of 127.0.0.1 and answers its URL. */
  async start(): Promise<string> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => void this.handle(req, res);
    const tls = this.options.tls;
    this.server = tls === undefined
      ? http.createServer(handler)
      : https.createServer({ key: tls.key, cert: tls.cert, ...(tls.ca === undefined ? {} : { ca: tls.ca, requestCert: true, rejectUnauthorized: true }) }, handler);
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** While down, every connection is cut before an answer: to the client, the registry is unreachable. */
  setDown(down: boolean): void {
    this.down = down;
    if (down) this.server?.closeAllConnections();
  }

  /** Who may call it from now on (credentials changed on the registry's side); undefined: anyone. */
  setUsers(users: readonly string[] | undefined): void {
    this.users = users;
  }

  /** Registers a schema as another application would; answers its id. */
  register(subject: string, schema: string, schemaType = 'AVRO'): number {
    let stored = this.schemas.find((s) => s.schema === schema && s.schemaType === schemaType);
    if (stored === undefined) {
      stored = { id: this.schemas.length + 1, schemaType, schema };
      this.schemas.push(stored);
    }
    const versions = this.subjects.get(subject) ?? [];
    if (!versions.includes(stored.id)) versions.push(stored.id);
    this.subjects.set(subject, versions);
    return stored.id;
  }

  /** The id of a subject's latest schema, if the subject exists. */
  latestId(subject: string): number | undefined {
    return this.subjects.get(subject)?.at(-1);
  }

  subjectNames(): string[] {
    return [...this.subjects.keys()];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://registry');
    const path = decodeURIComponent(url.pathname);
    this.requests.push(`${req.method} ${path}`);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': CONTENT_TYPE });
      res.end(JSON.stringify(body));
    };
    const users = this.users;
    if (users !== undefined) {
      const given = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
      if (given === undefined || !users.includes(Buffer.from(given, 'base64').toString('utf8'))) {
        answer(401, { error_code: 401, message: 'Unauthorized' });
        return;
      }
    }
    const body = req.method === 'POST' ? (JSON.parse(await readBody(req)) as { schema: string; schemaType?: string }) : undefined;
    const describe = (subject: string, stored: Stored) => ({
      subject,
      id: stored.id,
      version: this.subjects.get(subject)!.indexOf(stored.id) + 1,
      schema: stored.schema,
      ...(stored.schemaType === 'AVRO' ? {} : { schemaType: stored.schemaType }),
    });
    let match: RegExpMatchArray | null;
    if (req.method === 'POST' && (match = path.match(/^\/subjects\/(.+)\/versions$/))) {
      answer(200, { id: this.register(match[1]!, body!.schema, body!.schemaType ?? 'AVRO') });
    } else if (req.method === 'POST' && (match = path.match(/^\/subjects\/(.+)$/))) {
      const subject = match[1]!;
      const stored = this.schemas.find((s) => s.schema === body!.schema && s.schemaType === (body!.schemaType ?? 'AVRO'));
      if (!this.subjects.has(subject)) answer(404, { error_code: 40401, message: `Subject '${subject}' not found.` });
      else if (stored === undefined || !this.subjects.get(subject)!.includes(stored.id)) answer(404, { error_code: 40403, message: 'Schema not found' });
      else answer(200, describe(subject, stored));
    } else if (req.method === 'GET' && (match = path.match(/^\/schemas\/ids\/(\d+)$/))) {
      const stored = this.schemas.find((s) => s.id === Number(match![1]));
      if (stored === undefined) answer(404, { error_code: 40403, message: 'Schema not found' });
      else answer(200, { schema: stored.schema, ...(stored.schemaType === 'AVRO' ? {} : { schemaType: stored.schemaType }) });
    } else if (req.method === 'GET' && (match = path.match(/^\/subjects\/(.+)\/versions\/latest$/))) {
      const subject = match[1]!;
      const versions = this.subjects.get(subject);
      if (versions === undefined) answer(404, { error_code: 40401, message: `Subject '${subject}' not found.` });
      else answer(200, describe(subject, this.schemas.find((s) => s.id === versions[versions.length - 1])!));
    } else {
      answer(404, { error_code: 404, message: `${req.method} ${path} is not served by the registry double` });
    }
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Reads a record, waiting out the look-ups it starts (as the task does: SerdeNotReady, then the record again). */
export async function readEventually<T>(read: () => T): Promise<T> {
  for (;;) {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof SerdeNotReady)) throw error;
      await error.ready;
    }
  }
}
