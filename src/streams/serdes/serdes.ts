import { bytesSerde } from './bytes';
import { doubleSerde } from './double';
import { floatSerde } from './float';
import { integerSerde } from './integer';
import { jsonSerde } from './json';
import { longSerde } from './long';
import type { Serde } from './serde';
import { stringSerde } from './string';
import { voidSerde } from './void';

/** The built-in serdes under the names Kafka's `Serdes` class gives them, plus JSON. */
export const Serdes = {
  String: (): Serde<string> => stringSerde,
  Integer: (): Serde<number> => integerSerde,
  Long: (): Serde<number> => longSerde,
  Double: (): Serde<number> => doubleSerde,
  Float: (): Serde<number> => floatSerde,
  /** Kafka's `Serdes.ByteArray()`; same bytes as `Bytes()`. */
  ByteArray: (): Serde<Buffer> => bytesSerde,
  Bytes: (): Serde<Buffer> => bytesSerde,
  Void: (): Serde<null> => voidSerde,
  /** JSON text; the type parameter is the caller's claim about what the JSON holds, it is not checked. */
  Json: <T = unknown>(): Serde<T> => jsonSerde as Serde<T>,
} as const;
