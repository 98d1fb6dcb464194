import { ConfigException } from '../../errors';
import { bytesSerde } from './bytes';
import { doubleSerde } from './double';
import { floatSerde } from './float';
import { integerSerde } from './integer';
import { jsonSerde } from './json';
import { longSerde } from './long';
import type { Serde } from './serde';
import { stringSerde } from './string';
import { voidSerde } from './void';

const BY_SHORT_NAME: ReadonlyMap<string, Serde<unknown>> = new Map<string, Serde<unknown>>(
  [stringSerde, jsonSerde, bytesSerde, voidSerde, integerSerde, longSerde, doubleSerde, floatSerde].map((serde) => [
    serde.name,
    serde as Serde<unknown>,
  ]),
);

/** Java class names from Kafka Streams configurations, so that a Java application's config works unchanged. */
const JAVA_SERDES = 'org.apache.kafka.common.serialization.Serdes$';
const BY_JAVA_CLASS: ReadonlyMap<string, Serde<unknown>> = new Map<string, Serde<unknown>>([
  [JAVA_SERDES + 'StringSerde', stringSerde as Serde<unknown>],
  [JAVA_SERDES + 'IntegerSerde', integerSerde as Serde<unknown>],
  [JAVA_SERDES + 'LongSerde', longSerde as Serde<unknown>],
  [JAVA_SERDES + 'DoubleSerde', doubleSerde as Serde<unknown>],
  [JAVA_SERDES + 'FloatSerde', floatSerde as Serde<unknown>],
  [JAVA_SERDES + 'ByteArraySerde', bytesSerde as Serde<unknown>],
  [JAVA_SERDES + 'BytesSerde', bytesSerde as Serde<unknown>],
  [JAVA_SERDES + 'ByteBufferSerde', bytesSerde as Serde<unknown>],
  [JAVA_SERDES + 'VoidSerde', voidSerde as Serde<unknown>],
]);

/**
 * Resolves a `default.key.serde` / `default.value.serde` value: a short name (`string`, `json`, `bytes`, `void`,
 * `integer`, `long`, `double`, `float`; case-insensitive) or the Java class name of the matching Kafka serde
 * (`org.apache.kafka.common.serialization.Serdes$StringSerde`, ...). Anything else is a ConfigException.
 */
export function serdeByName(name: string): Serde<unknown> {
  const trimmed = name.trim();
  const serde = BY_SHORT_NAME.get(trimmed.toLowerCase()) ?? BY_JAVA_CLASS.get(trimmed);
  if (serde === undefined) {
    const known = [...BY_SHORT_NAME.keys()].join(', ');
    throw new ConfigException(
      `unknown serde '${name}': use one of ${known} or a Kafka serde class name such as ${JAVA_SERDES}StringSerde`,
    );
  }
  return serde;
}
