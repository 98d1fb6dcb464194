/**
 * Errors as they cross between a worker and the main thread. Structured cloning keeps an error's message and stack
 * but drops what the runtime decides by (kafkajs' `retriable` and `type`, Sluice's `exception` and `code`, the
 * `cause` chain), so those travel as plain fields and the error is rebuilt with them.
 */
export interface TransferredError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
  readonly cause?: TransferredError;
}

const MAX_CAUSES = 10;

export function transferError(error: unknown, depth = 0): TransferredError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  const cause = (error as { cause?: unknown }).cause ?? (error as { originalError?: unknown }).originalError;
  return {
    name: error.name,
    message: error.message,
    ...(error.stack !== undefined ? { stack: error.stack } : {}),
    fields,
    ...(cause !== undefined && depth < MAX_CAUSES ? { cause: transferError(cause, depth + 1) } : {}),
  };
}

export function rebuildError(transferred: TransferredError): Error {
  const error = new Error(transferred.message, transferred.cause ? { cause: rebuildError(transferred.cause) } : undefined);
  Object.assign(error, transferred.fields);
  Object.defineProperty(error, 'name', { value: transferred.name, enumerable: false, configurable: true, writable: true });
  if (transferred.stack !== undefined) error.stack = transferred.stack;
  return error;
}
