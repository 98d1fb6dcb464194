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

/** Defines one catalogue entry: the message is built from the constructor's arguments. */
function define<A extends unknown[]>(
  exception: string,
  statusCode: number,
  message: (...args: A) => string,
): SluiceErrorClass<A> {
  const code = 'SLUICE_' + exception.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
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

// Runtime.
export const StreamsException = define('StreamsException', 500, (detail: string) => detail);
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
  (dir: string) => `The task directory ${dir} is locked by another instance`,
);
export const BrokerUnavailable = define('BrokerUnavailable', 503, (detail: string) => detail);
