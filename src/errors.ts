/**
 * The one catalogue of Sluice's errors, in the manner of fastify's: every error has a stable name (served
 * as `exception` in the API's error body), a stable code and a kind. Layers throw these; each transport says what a
 * kind is in its own terms, in one table each: the HTTP layer its status (src/server/http-status.ts), the peer server
 * its gRPC status, the `sluice` command its exit code.
 */

/**
 * What went wrong, whoever asks; modelled on gRPC's status codes, one kind per HTTP status the API answers with, so
 * that the error body keeps its status.
 */
export type ErrorKind =
  /** The input is wrong: a query, a configuration, a topology, a request. */
  | 'invalid'
  /** No credentials, or wrong ones. */
  | 'unauthenticated'
  /** Who asks may not do this. */
  | 'forbidden'
  /** What is asked for does not exist. */
  | 'not-found'
  /** What is asked for exists, but not this operation on it. */
  | 'unsupported'
  /** The request did not arrive in time. */
  | 'timed-out'
  /** Not in the state this needs: already exists, locked, a state it cannot move from. */
  | 'conflict'
  /** The request's content is over its limit. */
  | 'too-large'
  /** A name in the request's path is over its limit. */
  | 'path-too-long'
  /** The request's headers (its metadata) are over their limit. */
  | 'headers-too-large'
  /** Too many attempts: try again later. */
  | 'rate-limited'
  /** A fault of Sluice's own. */
  | 'internal'
  /** The server called answered something Sluice cannot read. */
  | 'bad-answer'
  /** Not ready, or something needed cannot be reached: may work later. */
  | 'unavailable';

export interface SluiceErrorOptions {
  cause?: unknown;
}

export class SluiceError extends Error {
  /** Stable name, e.g. `UnknownApplication`; the API's `exception` field. */
  readonly exception: string;
  /** Stable code, e.g. `SLUICE_UNKNOWN_APPLICATION`. */
  readonly code: string;
  /** What went wrong, which each transport answers in its own terms. */
  readonly kind: ErrorKind;

  constructor(exception: string, code: string, kind: ErrorKind, message: string, options?: SluiceErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = exception;
    this.exception = exception;
    this.code = code;
    this.kind = kind;
  }
}

export interface SluiceErrorClass<A extends unknown[]> {
  new (...args: [...A, SluiceErrorOptions?]): SluiceError;
  readonly exception: string;
  readonly code: string;
  readonly kind: ErrorKind;
}

/** The stable code of an error name: `UnknownApplication` → `SLUICE_UNKNOWN_APPLICATION`. */
export function errorCode(exception: string): string {
  return 'SLUICE_' + exception.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** Defines one catalogue entry: the message is built from the constructor's arguments. */
function define<A extends unknown[]>(
  exception: string,
  kind: ErrorKind,
  message: (...args: A) => string,
): SluiceErrorClass<A> {
  const code = errorCode(exception);
  const cls = class extends SluiceError {
    static readonly exception = exception;
    static readonly code = code;
    static readonly kind = kind;
    constructor(...args: [...A, SluiceErrorOptions?]) {
      const last = args[args.length - 1];
      const hasOptions = args.length > message.length && typeof last === 'object' && last !== null;
      const options = hasOptions ? (last as SluiceErrorOptions) : undefined;
      const messageArgs = (hasOptions ? args.slice(0, -1) : args) as unknown as A;
      super(exception, code, kind, message(...messageArgs), options);
    }
  };
  Object.defineProperty(cls, 'name', { value: exception });
  return cls as unknown as SluiceErrorClass<A>;
}

// Topology and configuration (raised while building or configuring, before anything runs).
export const TopologyException = define('TopologyException', 'invalid', (detail: string) => `Invalid topology: ${detail}`);
export const ConfigException = define('ConfigException', 'invalid', (detail: string) => `Invalid configuration: ${detail}`);
export const SerializationException = define('SerializationException', 'invalid', (detail: string) => detail);
const SerdeNotReadyError = define('SerdeNotReady', 'unavailable', (detail: string) => detail);
export interface SerdeNotReadyOptions extends SluiceErrorOptions {
  /** What is looked up, as log fields: `{ schemaId: 42 }`, `{ subject: 'orders-value' }`. */
  lookingUp?: Readonly<Record<string, string | number>>;
}

/**
 * A deserializer must look something up before it can read a record (a schema id it has not seen), or a serde's
 * `prepare` could not yet: the task stops before that record (or before it starts) and tries again once `ready`
 * settles (it never rejects; a failed look-up is the serde's to report on the next try). A `cause` says the service
 * asked failed (an outage, which the thread logs) rather than that the answer is still on its way.
 */
export class SerdeNotReady extends SerdeNotReadyError {
  readonly lookingUp: Readonly<Record<string, string | number>>;
  /** The record held until `ready` settles, as the task that holds it fills it in. */
  record: { topic: string; partition: number; offset: number } | undefined;

  constructor(
    detail: string,
    readonly ready: Promise<void>,
    options: SerdeNotReadyOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.lookingUp = options.lookingUp ?? {};
  }
}
// The registry client is an optional peer dependency: it brings the cloud KMS SDKs, which most applications do not need.
export const SchemaRegistryClientNotInstalled = define(
  'SchemaRegistryClientNotInstalled',
  'internal',
  () => 'Schema Registry serdes need the registry client: install @confluentinc/schemaregistry to use Schema Registry serdes (npm install @confluentinc/schemaregistry)',
);

// Runtime.
export const StreamsException = define('StreamsException', 'internal', (detail: string) => detail);
export const UnsupportedKafkaClient = define('UnsupportedKafkaClient', 'internal', (detail: string) => `kafkajs cannot run as Sluice needs: ${detail}`);
export const ProcessorException = define(
  'ProcessorException',
  'internal',
  (node: string, taskId: string, detail: string) => `Processor '${node}' of task ${taskId} failed: ${detail}`,
);
export const IllegalStateTransition = define(
  'IllegalStateTransition',
  'conflict',
  (from: string, to: string) => `Cannot move from state ${from} to ${to}`,
);
export const IllegalState = define('IllegalState', 'conflict', (detail: string) => detail);
export const InvalidStateStore = define('InvalidStateStore', 'unavailable', (detail: string) => detail);
export const TaskDirectoryLocked = define(
  'TaskDirectoryLocked',
  'conflict',
  (dir: string, holder: string) => `The task directory ${dir} is locked by ${holder}`,
);
// A task's local state that cannot be trusted: it is wiped and restored from the changelog, never used.
export const CorruptedTaskState = define('CorruptedTaskState', 'internal', (path: string, detail: string) => `Corrupted task state ${path}: ${detail}`);
// A task's transaction ended in an unknown state (its commit failed midway): the task is closed dirty and taken up
// again from its changelogs and committed offsets, as Kafka Streams does on TaskMigratedException.
export const TaskMigrated = define('TaskMigrated', 'internal', (taskId: string, detail: string) => `Task ${taskId} lost its transaction: ${detail}`);
export const BrokerUnavailable = define('BrokerUnavailable', 'unavailable', (detail: string) => detail);
// The streams rebalance protocol (KIP-1071, StreamsGroupHeartbeat): the broker does not offer it (before Kafka 4.1, or
// not enabled), refused the application's topology, or fenced the member (it joins again, at epoch 0, with no tasks).
export const StreamsProtocolUnsupported = define(
  'StreamsProtocolUnsupported',
  'unsupported',
  (detail: string) => `The streams rebalance protocol (group.protocol=streams) is not available: ${detail}`,
);
export const StreamsTopologyRejected = define('StreamsTopologyRejected', 'invalid', (groupId: string, detail: string) => `The group coordinator refused the topology of ${groupId}: ${detail}`);
export const StreamsMemberFenced = define('StreamsMemberFenced', 'conflict', (groupId: string, detail: string) => `The member of streams group ${groupId} must join again: ${detail}`);
export const StreamsGroupNotFound = define('StreamsGroupNotFound', 'not-found', (groupId: string, detail: string) => `No streams group ${groupId}: ${detail}`);
// Kafka refused who Sluice is (SASL) or the TLS connection failed: a configuration to fix, not a fault to ride out.
export const KafkaAuthenticationFailed = define('KafkaAuthenticationFailed', 'unavailable', (detail: string) => `Kafka authentication failed: ${detail}`);
export const KafkaTlsFailed = define('KafkaTlsFailed', 'unavailable', (detail: string) => `TLS connection to Kafka failed: ${detail}`);
export const InvalidApplicationId = define(
  'InvalidApplicationId',
  'invalid',
  (id: string, reason: string) => `Invalid application id '${id}': ${reason}`,
);
export const PathOutsideStateDirectory = define(
  'PathOutsideStateDirectory',
  'invalid',
  (target: string, stateDir: string) => `The path ${target} is not inside the state directory ${stateDir}`,
);

// Broker provisioning (tests, demos): no way to get a broker, or the chosen one failed to come up.
export const NoBrokerAvailable = define('NoBrokerAvailable', 'unavailable', (missing: string) => `No Kafka broker available: ${missing}`);
export const BrokerProvisioningFailed = define('BrokerProvisioningFailed', 'internal', (detail: string) => detail);

// `sluice init`: it writes a new application only where nothing would be overwritten.
export const InitDirectoryNotEmpty = define(
  'InitDirectoryNotEmpty',
  'conflict',
  (dir: string, detail: string) => `Cannot create an application in ${dir}: ${detail}; sluice init needs a new or empty directory`,
);

// Management API (HTTP layer and the host behind it).
export const UnknownApplication = define('UnknownApplication', 'not-found', (id: string) => `No application '${id}' in this process`);
export const UnknownStore = define('UnknownStore', 'not-found', (id: string, store: string) => `Application '${id}' has no state store '${store}'`);
export const UnknownMetric = define('UnknownMetric', 'not-found', (detail: string) => `No metric matches ${detail}`);
export const UnknownEventType = define(
  'UnknownEventType',
  'not-found',
  (id: string, type: string, known: string) => `Application '${id}' has no event type '${type}'; known: ${known}`,
);
export const UnknownTopology = define('UnknownTopology', 'not-found', (detail: string) => `No topology ${detail}`);
export const RouteNotFound = define('RouteNotFound', 'not-found', (method: string, path: string) => `No route ${method} ${path}`);
export const MethodNotAllowed = define(
  'MethodNotAllowed',
  'unsupported',
  (method: string, path: string, allowed: string) => `Method ${method} is not allowed on ${path}; allowed: ${allowed}`,
);
export const InvalidRequest = define('InvalidRequest', 'invalid', (detail: string) => detail);
export const ConfigKeyNotAllowed = define(
  'ConfigKeyNotAllowed',
  'invalid',
  (key: string) =>
    `Configuration key '${key}' cannot be set through the API (the deploy body in /openapi.json lists those it can); ` +
    "files, directories, modules, endpoints and credentials come from the node's own configuration",
);
export const UriTooLong = define('UriTooLong', 'path-too-long', (limit: number) => `A segment of the request path is longer than ${limit} characters`);
export const HeadersTooLarge = define('HeadersTooLarge', 'headers-too-large', () => 'The request line and headers are too large');
export const RequestTimeout = define('RequestTimeout', 'timed-out', () => 'The request (its headers or its body) did not arrive in time');
export const MalformedJson = define('MalformedJson', 'invalid', (detail: string) => `The request body is not valid JSON: ${detail}`);
export const PayloadTooLarge = define('PayloadTooLarge', 'too-large', (limit: number) => `The request body is larger than ${limit} bytes`);
export const NoLocalInstance = define(
  'NoLocalInstance',
  'unavailable',
  (id: string, state: string) => `Application '${id}' has no running local instance (state ${state})`,
);
export const ApplicationExists = define('ApplicationExists', 'conflict', (id: string) => `Application '${id}' already exists in this process`);
export const EnvironmentNotCreatable = define(
  'EnvironmentNotCreatable',
  'conflict',
  (name: string) =>
    `Environment '${name}' cannot be created: a Sluice node has one environment, '__default', whose configuration is the node's own ` +
    '(its configuration file); run another node for another environment',
);
// The web console's assets are built by `npm run build`; a node run from sources without it has none to serve.
export const ConsoleNotBuilt = define('ConsoleNotBuilt', 'unavailable', (dir: string) => `The web console is not built (no ${dir}): run npm run build`);
export const Unauthorized = define('Unauthorized', 'unauthenticated', () => 'Missing or wrong credentials');
export const TooManyFailedLogins = define(
  'TooManyFailedLogins',
  'rate-limited',
  (retryAfterS: number) => `Too many failed logins from this address or as this user: try again in ${retryAfterS} s`,
);
export const Forbidden = define('Forbidden', 'forbidden', (detail: string) => detail);
export const InternalError = define(
  'InternalError',
  'internal',
  (correlationId: string) => `Internal error; it is logged with correlation id ${correlationId}`,
);

// Interactive queries.
export const InvalidQuery = define('InvalidQuery', 'invalid', (detail: string) => `Invalid query: ${detail}`);

// The client (sluice/client) and the CLI's commands on it: refused before a request is sent, or no usable answer.
export const InvalidClientRequest = define('InvalidClientRequest', 'invalid', (detail: string) => detail);
export const ServerUnreachable = define('ServerUnreachable', 'unavailable', (url: string, detail: string) => `Cannot reach ${url}: ${detail}`);
export const UnexpectedResponse = define('UnexpectedResponse', 'bad-answer', (detail: string) => `Unexpected answer from the server: ${detail}`);
