/**
 * The one catalogue of Sluice's errors, in the manner of fastify's: every error has a stable name (served
 * as `exception` in the API's error body), a stable code and an HTTP status. Layers throw these; the HTTP
 * layer turns them into the documented error body.
 */

export interface SluiceErrorOptions {
  cause?: unknown;
}

export class SluiceError extends Error {
  /** Stable name, e.g. `UnknownApplication`; the API's `exception` field. */
  readonly exception: string;
  /** Stable code, e.g. `SLUICE_UNKNOWN_APPLICATION`. */
  readonly code: string;
  /** HTTP status the API answers with when this error reaches it. */
  readonly statusCode: number;

  constructor(exception: string, code: string, statusCode: number, message: string, options?: SluiceErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = exception;
    this.exception = exception;
    this.code = code;
    this.statusCode = statusCode;
  }
}

export interface SluiceErrorClass<A extends unknown[]> {
  new (...args: [...A, SluiceErrorOptions?]): SluiceError;
  readonly exception: string;
  readonly code: string;
  readonly statusCode: number;
}

/** The stable code of an error name: `UnknownApplication` → `SLUICE_UNKNOWN_APPLICATION`. */
export function errorCode(exception: string): string {
  return 'SLUICE_' + exception.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** Defines one catalogue entry: the message is built from the constructor's arguments. */
function define<A extends unknown[]>(
  exception: string,
  statusCode: number,
  message: (...args: A) => string,
): SluiceErrorClass<A> {
  const code = errorCode(exception);
  const cls = class extends SluiceError {
    static readonly exception = exception;
    static readonly code = code;
    static readonly statusCode = statusCode;
    constructor(...args: [...A, SluiceErrorOptions?]) {
      const last = args[args.length - 1];
      const hasOptions = args.length > message.length && typeof last === 'object' && last !== null;
      const options = hasOptions ? (last as SluiceErrorOptions) : undefined;
      const messageArgs = (hasOptions ? args.slice(0, -1) : args) as unknown as A;
      super(exception, code, statusCode, message(...messageArgs), options);
    }
  };
  Object.defineProperty(cls, 'name', { value: exception });
  return cls as unknown as SluiceErrorClass<A>;
}

// Topology and configuration (raised while building or configuring, before anything runs).
export const TopologyException = define('TopologyException', 400, (detail: string) => `Invalid topology: ${detail}`);
export const ConfigException = define('ConfigException', 400, (detail: string) => `Invalid configuration: ${detail}`);
export const SerializationException = define('SerializationException', 400, (detail: string) => detail);
const SerdeNotReadyError = define('SerdeNotReady', 503, (detail: string) => detail);
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
  500,
  () => 'Schema Registry serdes need the registry client: install @confluentinc/schemaregistry to use Schema Registry serdes (npm install @confluentinc/schemaregistry)',
);

// Runtime.
export const StreamsException = define('StreamsException', 500, (detail: string) => detail);
export const UnsupportedKafkaClient = define('UnsupportedKafkaClient', 500, (detail: string) => `kafkajs cannot run as Sluice needs: ${detail}`);
export const ProcessorException = define(
  'ProcessorException',
  500,
  (node: string, taskId: string, detail: string) => `Processor '${node}' of task ${taskId} failed: ${detail}`,
);
export const IllegalStateTransition = define(
  'IllegalStateTransition',
  409,
  (from: string, to: string) => `Cannot move from state ${from} to ${to}`,
);
export const IllegalState = define('IllegalState', 409, (detail: string) => detail);
export const InvalidStateStore = define('InvalidStateStore', 503, (detail: string) => detail);
export const TaskDirectoryLocked = define(
  'TaskDirectoryLocked',
  409,
  (dir: string, holder: string) => `The task directory ${dir} is locked by ${holder}`,
);
// A task's local state that cannot be trusted: it is wiped and restored from the changelog, never used.
export const CorruptedTaskState = define('CorruptedTaskState', 500, (path: string, detail: string) => `Corrupted task state ${path}: ${detail}`);
// A task's transaction ended in an unknown state (its commit failed midway): the task is closed dirty and taken up
// again from its changelogs and committed offsets, as Kafka Streams does on TaskMigratedException.
export const TaskMigrated = define('TaskMigrated', 500, (taskId: string, detail: string) => `Task ${taskId} lost its transaction: ${detail}`);
export const BrokerUnavailable = define('BrokerUnavailable', 503, (detail: string) => detail);
// Kafka refused who Sluice is (SASL) or the TLS connection failed: a configuration to fix, not a fault to ride out.
export const KafkaAuthenticationFailed = define('KafkaAuthenticationFailed', 503, (detail: string) => `Kafka authentication failed: ${detail}`);
export const KafkaTlsFailed = define('KafkaTlsFailed', 503, (detail: string) => `TLS connection to Kafka failed: ${detail}`);
export const InvalidApplicationId = define(
  'InvalidApplicationId',
  400,
  (id: string, reason: string) => `Invalid application id '${id}': ${reason}`,
);
export const PathOutsideStateDirectory = define(
  'PathOutsideStateDirectory',
  400,
  (target: string, stateDir: string) => `The path ${target} is not inside the state directory ${stateDir}`,
);

// Broker provisioning (tests, demos): no way to get a broker, or the chosen one failed to come up.
export const NoBrokerAvailable = define('NoBrokerAvailable', 503, (missing: string) => `No Kafka broker available: ${missing}`);
export const BrokerProvisioningFailed = define('BrokerProvisioningFailed', 500, (detail: string) => detail);

// `sluice init`: it writes a new application only where nothing would be overwritten.
export const InitDirectoryNotEmpty = define(
  'InitDirectoryNotEmpty',
  409,
  (dir: string, detail: string) => `Cannot create an application in ${dir}: ${detail}; sluice init needs a new or empty directory`,
);

// Management API (HTTP layer and the host behind it).
export const UnknownApplication = define('UnknownApplication', 404, (id: string) => `No application '${id}' in this process`);
export const UnknownStore = define('UnknownStore', 404, (id: string, store: string) => `Application '${id}' has no state store '${store}'`);
export const UnknownMetric = define('UnknownMetric', 404, (detail: string) => `No metric matches ${detail}`);
export const UnknownEventType = define(
  'UnknownEventType',
  404,
  (id: string, type: string, known: string) => `Application '${id}' has no event type '${type}'; known: ${known}`,
);
export const UnknownTopology = define('UnknownTopology', 404, (detail: string) => `No topology ${detail}`);
export const RouteNotFound = define('RouteNotFound', 404, (method: string, path: string) => `No route ${method} ${path}`);
export const MethodNotAllowed = define(
  'MethodNotAllowed',
  405,
  (method: string, path: string, allowed: string) => `Method ${method} is not allowed on ${path}; allowed: ${allowed}`,
);
export const InvalidRequest = define('InvalidRequest', 400, (detail: string) => detail);
export const ConfigKeyNotAllowed = define(
  'ConfigKeyNotAllowed',
  400,
  (key: string) =>
    `Configuration key '${key}' cannot be set through the API (the deploy body in /openapi.json lists those it can); ` +
    "files, directories, modules, endpoints and credentials come from the node's own configuration",
);
export const UriTooLong = define('UriTooLong', 414, (limit: number) => `A segment of the request path is longer than ${limit} characters`);
export const HeadersTooLarge = define('HeadersTooLarge', 431, () => 'The request line and headers are too large');
export const RequestTimeout = define('RequestTimeout', 408, () => 'The request (its headers or its body) did not arrive in time');
export const MalformedJson = define('MalformedJson', 400, (detail: string) => `The request body is not valid JSON: ${detail}`);
export const PayloadTooLarge = define('PayloadTooLarge', 413, (limit: number) => `The request body is larger than ${limit} bytes`);
export const NoLocalInstance = define(
  'NoLocalInstance',
  503,
  (id: string, state: string) => `Application '${id}' has no running local instance (state ${state})`,
);
export const ApplicationExists = define('ApplicationExists', 409, (id: string) => `Application '${id}' already exists in this process`);
export const EnvironmentNotCreatable = define(
  'EnvironmentNotCreatable',
  409,
  (name: string) =>
    `Environment '${name}' cannot be created: a Sluice node has one environment, '__default', whose configuration is the node's own ` +
    '(its configuration file); run another node for another environment',
);
// The web console's assets are built by `npm run build`; a node run from sources without it has none to serve.
export const ConsoleNotBuilt = define('ConsoleNotBuilt', 503, (dir: string) => `The web console is not built (no ${dir}): run npm run build`);
export const Unauthorized = define('Unauthorized', 401, () => 'Missing or wrong credentials');
export const TooManyFailedLogins = define(
  'TooManyFailedLogins',
  429,
  (retryAfterS: number) => `Too many failed logins from this address or as this user: try again in ${retryAfterS} s`,
);
export const Forbidden = define('Forbidden', 403, (detail: string) => detail);
export const InternalError = define(
  'InternalError',
  500,
  (correlationId: string) => `Internal error; it is logged with correlation id ${correlationId}`,
);

// Interactive queries.
export const InvalidQuery = define('InvalidQuery', 400, (detail: string) => `Invalid query: ${detail}`);

// The client (sluice/client) and the CLI's commands on it: refused before a request is sent, or no usable answer.
export const InvalidClientRequest = define('InvalidClientRequest', 400, (detail: string) => detail);
export const ServerUnreachable = define('ServerUnreachable', 503, (url: string, detail: string) => `Cannot reach ${url}: ${detail}`);
export const UnexpectedResponse = define('UnexpectedResponse', 502, (detail: string) => `Unexpected answer from the server: ${detail}`);
