import { IllegalState } from '../../errors';
import type { Serde } from './serde';

/**
 * A serde built from the application's default serde, which is only known when a task starts (e.g. table
 * updates in a repartition topic wrap the default value serde). `resolveSerde` turns it into the real one.
 */
export interface DefaultDerivedSerde<T> extends Serde<T> {
  readonly deriveFromDefault: (defaultSerde: Serde<unknown>) => Serde<T>;
}

export function deriveFromDefault<T>(name: string, derive: (defaultSerde: Serde<unknown>) => Serde<T>): DefaultDerivedSerde<T> {
  const unresolved = (): never => {
    throw new IllegalState(`serde '${name}' is used before the default serde is known`);
  };
  return {
    name,
    deriveFromDefault: derive,
    serialize: unresolved,
    deserialize: unresolved,
    fromJson: unresolved,
    toJson: unresolved,
  };
}

/** The serde a node uses: its own, derived from the default, or the default itself. */
export function resolveSerde(configured: Serde<unknown> | undefined, defaultSerde: Serde<unknown>): Serde<unknown> {
  if (configured === undefined) return defaultSerde;
  const derived = configured as Partial<DefaultDerivedSerde<unknown>>;
  return derived.deriveFromDefault ? derived.deriveFromDefault(defaultSerde) : configured;
}
