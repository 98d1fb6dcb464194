/**
 * Validators of configuration values, in the manner of Kafka's `ConfigDef.Validator`: each accepts or refuses a
 * value already converted to its key's type, and says what it accepts for the error message.
 */
import { ConfigException } from '../../errors';
import { applicationIdProblem, MAX_APPLICATION_ID_LENGTH } from '../runtime/application-id';
import { type HandlerKey, NAMED_HANDLERS, namedHandler } from '../runtime/exception-handlers';
import { serdeByName } from '../serdes/serde-by-name';

/** A value converted to its key's type: numbers for numeric types, booleans, trimmed strings otherwise. */
export type TypedValue = string | number | boolean;

export interface Validator {
  accepts(value: TypedValue): boolean;
  /** What is accepted, completing "must be ...": `noun` names the type ("an integer", "a string", ...). */
  describe(noun: string): string;
}

/** Kafka's `Range.atLeast`. */
export function atLeast(min: number): Validator {
  return { accepts: (value) => Number(value) >= min, describe: (noun) => `${noun} >= ${min}` };
}

/** Kafka's `Range.between`, with the one value outside the range that some keys also take (`-1`: "not set"). */
export function between(min: number, max: number, orValue?: number): Validator {
  return {
    accepts: (value) => (Number(value) >= min && Number(value) <= max) || Number(value) === orValue,
    describe: (noun) => `${noun} between ${min} and ${max}${orValue === undefined ? '' : ` or ${orValue}`}`,
  };
}

/** Kafka's `ValidString.in`. */
export function oneOf(...allowed: string[]): Validator {
  return { accepts: (value) => allowed.includes(String(value)), describe: () => `one of ${allowed.join(', ')}` };
}

/** Kafka's `CaseInsensitiveValidString.in`. */
export function oneOfIgnoringCase(...allowed: string[]): Validator {
  const upper = allowed.map((a) => a.toUpperCase());
  return { accepts: (value) => upper.includes(String(value).toUpperCase()), describe: () => `one of ${allowed.join(', ')} (in any case)` };
}

function items(value: TypedValue): string[] {
  return String(value)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Kafka's `ValidList.in`: every item of the comma-separated list is one of `allowed`. */
export function listOf(...allowed: string[]): Validator {
  return { accepts: (value) => items(value).every((item) => allowed.includes(item)), describe: () => `a list of ${allowed.join(', ')}` };
}

/** Kafka's `ListSize.atMostOfSize`. */
export function atMostItems(max: number): Validator {
  return { accepts: (value) => items(value).length <= max, describe: () => `a list of at most ${max} items` };
}

/** Kafka's `NonEmptyString`. */
export const nonEmpty: Validator = { accepts: (value) => String(value) !== '', describe: () => 'a non-empty string' };

/** `host:port` or blank; Kafka Streams' `HostInfo.buildFromEndpoint`. */
export function parseEndpoint(key: string, value: string): { host: string; port: number } | undefined {
  if (value.trim() === '') return undefined;
  const match = /^(.+):(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new ConfigException(`'${key}' must have the form host:port, got '${value}'`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `host:port`, or blank for none. */
export const endpoint: Validator = {
  accepts: (value) => {
    try {
      parseEndpoint('', String(value));
      return true;
    } catch {
      return false;
    }
  },
  describe: () => 'of the form host:port',
};

/** A serde `serdeByName` resolves: a short name or a Kafka serde class name. */
export const serdeName: Validator = {
  accepts: (value) => {
    try {
      serdeByName(String(value));
      return true;
    } catch {
      return false;
    }
  },
  describe: () => "a serde: string, json, bytes, void, integer, long, double, float, or a Kafka serde class name such as org.apache.kafka.common.serialization.Serdes$StringSerde",
};

/** A handler of `key` named by its Kafka Streams class name (short, or with `org.apache.kafka.streams.errors.`). */
export function exceptionHandler(key: HandlerKey): Validator {
  return {
    accepts: (value) => namedHandler(key, String(value)) !== undefined,
    describe: () => Object.keys(NAMED_HANDLERS[key]).join(' or '),
  };
}

/** An `application.id` as the runtime's rule takes it (it names the group, the internal topics and a directory). */
export const applicationId: Validator = {
  accepts: (value) => applicationIdProblem(String(value)) === undefined,
  describe: () => `at most ${MAX_APPLICATION_ID_LENGTH} letters, digits, '.', '_' or '-', and not '.' or '..'`,
};
