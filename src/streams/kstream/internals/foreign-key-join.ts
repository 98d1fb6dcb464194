import { SerializationException } from '../../../errors';
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../processor/processor';
import type { StreamRecord } from '../../processor/record';
import { deriveFromDefault } from '../../serdes/default-serde';
import type { Serde } from '../../serdes/serde';
import { Serdes } from '../../serdes/serdes';
import type { KeyValueStore, StateStore, ValueAndTimestamp } from '../../state/store';
import { Stores, type StoreBuilder } from '../../state/stores';
import type { Change } from './change';
import { defaultSerdes, dropRecord, isNull } from './drop';
import { murmur3Hash128 } from './murmur3';
import type { ValueGetter, ValueGetterSupplier } from './value-getters';

/**
 * Foreign-key table-table joins (Kafka Streams' KIP-213, `kstream.internals.foreignkeyjoin`). The left table sends a
 * subscription for each of its keys to the partition of the foreign key it extracts (subscription topic); there it
 * is kept in the subscription store under (foreign key, primary key) and answered with the right table's value, and
 * every update of the right table answers all the subscriptions of its key (a prefix range of the store). Answers go
 * back to the left key's partition (response topic), where they are joined with the left table's current value, unless
 * the hash of that value no longer matches the one the subscription carried: the answer is stale and dropped.
 */

type Supplier = ProcessorSupplier<unknown, unknown, unknown, unknown>;

/** What the subscribing side asks for (Kafka Streams' `SubscriptionWrapper.Instruction`, with its byte values). */
export const Instruction = {
  /** The left key left this foreign key: forget the subscription, send nothing. */
  DELETE_KEY_NO_PROPAGATE: 0,
  /** The left key is gone: forget the subscription and send a null foreign value. */
  DELETE_KEY_AND_PROPAGATE: 1,
  /** Send the foreign value, or null when there is none (the result may need unsetting). */
  PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE: 2,
  /** Send the foreign value only when there is one (a new key of an inner join). */
  PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE: 3,
} as const;
export type Instruction = (typeof Instruction)[keyof typeof Instruction];

const INSTRUCTION_NAMES = Object.fromEntries(Object.entries(Instruction).map(([name, value]) => [value, name])) as Record<Instruction, string>;

/** A subscription: the left key (serialized), its partition, and the hash of the left value it was sent for. */
export interface Subscription {
  hash: Buffer | null;
  instruction: Instruction;
  primaryKey: Buffer;
  primaryPartition: number;
}

/** An answer to a subscription: the foreign value (null: none), for the left value of that hash. */
export interface SubscriptionResponse<VO> {
  hash: Buffer | null;
  foreignValue: VO | null;
  /** Where the answer goes; not written to the topic (the sink uses it), as in Kafka Streams. */
  primaryPartition: number;
}

/** The hash a subscription carries: of the serialized left value, null for none. */
export function valueHash<V>(serde: Serde<V>, value: V | null): Buffer | null {
  return value === null ? null : murmur3Hash128(serde.serialize(value));
}

function sameHash(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

const VERSION = 1;
const HASH_NULL = 0x80;
const HASH_BYTES = 16;

function notFromJson(what: string): never {
  throw new SerializationException(`${what} cannot be read from JSON`);
}

/**
 * Subscriptions as Kafka Streams 3.9 writes them (version 1): `{1 bit hash-is-null}{7 bits version}{instruction}
 * {16-byte hash, unless null}{primary key}{4-byte primary partition}`.
 */
export const subscriptionSerde: Serde<Subscription> = {
  name: 'fk-join-subscription',
  serialize(s) {
    const head = Buffer.from([VERSION | (s.hash === null ? HASH_NULL : 0), s.instruction]);
    const partition = Buffer.alloc(4);
    partition.writeInt32BE(s.primaryPartition);
    return Buffer.concat([head, ...(s.hash === null ? [] : [s.hash]), s.primaryKey, partition]);
  },
  deserialize(bytes) {
    const version = bytes[0]! & 0x7f;
    if (version > VERSION) throw new SerializationException(`foreign-key join subscription of unknown version ${version}`);
    const hashNull = (bytes[0]! & HASH_NULL) !== 0;
    const keyStart = hashNull ? 2 : 2 + HASH_BYTES;
    // Version 0 had no partition.
    const keyEnd = version === 0 ? bytes.length : bytes.length - 4;
    return {
      hash: hashNull ? null : Buffer.from(bytes.subarray(2, keyStart)),
      instruction: bytes[1]! as Instruction,
      primaryKey: Buffer.from(bytes.subarray(keyStart, keyEnd)),
      primaryPartition: version === 0 ? -1 : bytes.readInt32BE(keyEnd),
    };
  },
  fromJson: () => notFromJson('a foreign-key join subscription'),
  toJson: (s) => ({
    instruction: INSTRUCTION_NAMES[s.instruction],
    primaryKey: s.primaryKey.toString('base64'),
    hash: s.hash?.toString('hex') ?? null,
    primaryPartition: s.primaryPartition,
  }),
};

function responseSerdeOf<VO>(inner: Serde<VO>): Serde<SubscriptionResponse<VO>> {
  return {
    name: `fk-join-response(${inner.name})`,
    // `{1 bit hash-is-null}{7 bits version 0}{16-byte hash, unless null}{foreign value}`: empty means null.
    serialize(r) {
      const value = r.foreignValue === null ? [] : [inner.serialize(r.foreignValue)];
      return Buffer.concat([Buffer.from([r.hash === null ? HASH_NULL : 0]), ...(r.hash === null ? [] : [r.hash]), ...value]);
    },
    deserialize(bytes) {
      const hashNull = (bytes[0]! & HASH_NULL) !== 0;
      const valueStart = hashNull ? 1 : 1 + HASH_BYTES;
      return {
        hash: hashNull ? null : Buffer.from(bytes.subarray(1, valueStart)),
        foreignValue: bytes.length > valueStart ? inner.deserialize(bytes.subarray(valueStart)) : null,
        primaryPartition: -1,
      };
    },
    fromJson: () => notFromJson('a foreign-key join response'),
    toJson: (r) => ({ hash: r.hash?.toString('hex') ?? null, foreignValue: r.foreignValue === null ? null : inner.toJson(r.foreignValue) }),
  };
}

/** The response topic's serde: the right table's value serde inside, or the default value serde. */
export function responseSerde<VO>(foreignValueSerde: Serde<VO> | undefined): Serde<SubscriptionResponse<VO>> {
  return foreignValueSerde
    ? responseSerdeOf(foreignValueSerde)
    : deriveFromDefault('fk-join-response(default)', (serde) => responseSerdeOf(serde as Serde<VO>));
}

/**
 * Responses go back to the partition of the left key that subscribed; subscriptions of version 0 carry none, and
 * their responses are partitioned by key as Kafka Streams did then.
 */
export const responsePartitioner = (_topic: string, _key: unknown, response: SubscriptionResponse<unknown>): number | undefined =>
  response.primaryPartition >= 0 ? response.primaryPartition : undefined;

/**
 * Keys of the subscription store (Kafka Streams' `CombinedKeySchema`): `{4-byte foreign key length}{foreign key}
 * {primary key}`, so that the subscriptions of one foreign key are one prefix range.
 */
export function subscriptionPrefix(foreignKey: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(foreignKey.length);
  return Buffer.concat([length, foreignKey]);
}

/** The subscription store: timestamped, changelogged, never cached (Kafka Streams' `SubscriptionStoreFactory`). */
export function subscriptionStoreBuilder(name: string): StoreBuilder<StateStore> {
  const builder = Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore(name), Serdes.Bytes(), subscriptionSerde);
  return builder.withCachingDisabled().withLoggingEnabled({}) as unknown as StoreBuilder<StateStore>;
}

type SubscriptionStore = KeyValueStore<Buffer, ValueAndTimestamp<Subscription>>;

/** A subscription on its way from the subscription store to the join with the right table. */
interface CombinedKey<KO> {
  foreignKey: KO | null;
  primaryKey: Buffer;
}

/** The partition of the task: the one a left table's record came from, also when a cache flush sends it. */
function taskPartition(context: ProcessorContext<unknown, unknown>): number {
  return context.recordMetadata()?.partition ?? Number(context.taskId.slice(context.taskId.lastIndexOf('_') + 1));
}

abstract class ContextProcessor<K, V> implements Processor<K, V, unknown, unknown> {
  protected context!: ProcessorContext<unknown, unknown>;

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
  }

  abstract process(record: StreamRecord<K, V>): void;
}

/** A processor over the subscription store, which is keyed by foreign key (its serde as given, or the default key serde). */
abstract class SubscriptionStoreProcessor<K, V, KO> extends ContextProcessor<K, V> {
  protected store!: SubscriptionStore;
  protected foreignKeySerde!: Serde<KO>;

  constructor(
    private readonly storeName: string,
    private readonly givenForeignKeySerde: Serde<KO> | undefined,
  ) {
    super();
  }

  override init(context: ProcessorContext<unknown, unknown>): void {
    super.init(context);
    this.store = context.getStateStore<SubscriptionStore>(this.storeName);
    this.foreignKeySerde = this.givenForeignKeySerde ?? (defaultSerdes(context).key as Serde<KO>);
  }
}

/** The serdes of both tables' keys and of the left table's values, as given or the application's defaults. */
export interface ForeignKeySerdes<K, V, KO> {
  primaryKey?: Serde<K> | undefined;
  value?: Serde<V> | undefined;
  foreignKey?: Serde<KO> | undefined;
}

/**
 * The left table's updates as subscriptions (Kafka Streams 3.9.1's `SubscriptionSendProcessorSupplier`): to the new
 * foreign key, and a silent deletion to the old one when it changed. An inner join deletes the result of a left value
 * that is gone or lost its foreign key, and skips values without one; a left join sends null foreign keys too (the
 * result is the left value joined with null).
 */
export function subscriptionSendProcessor<K, V, KO>(
  extractor: (value: V, key: K) => KO | null | undefined,
  leftJoin: boolean,
  serdes: ForeignKeySerdes<K, V, KO>,
): Supplier {
  return () =>
    new (class extends ContextProcessor<K, Change<V>> {
      private foreignKeySerde!: Serde<KO>;
      private primaryKeySerde!: Serde<K>;
      private valueSerde!: Serde<V>;

      override init(context: ProcessorContext<unknown, unknown>): void {
        super.init(context);
        const defaults = defaultSerdes(context);
        this.foreignKeySerde = serdes.foreignKey ?? (defaults.key as Serde<KO>);
        this.primaryKeySerde = serdes.primaryKey ?? (defaults.key as Serde<K>);
        this.valueSerde = serdes.value ?? (defaults.value as Serde<V>);
      }

      process(record: StreamRecord<K, Change<V>>): void {
        const { newValue, oldValue } = record.value;
        const foreignKeyOf = (value: V | null): KO | null => (value === null ? null : (extractor(value, record.key) ?? null));
        let hash: Buffer | null | undefined;
        const send = (foreignKey: KO | null, instruction: Instruction): void => {
          hash ??= valueHash(this.valueSerde, newValue);
          const subscription: Subscription = {
            hash,
            instruction,
            primaryKey: this.primaryKeySerde.serialize(record.key),
            primaryPartition: taskPartition(this.context),
          };
          this.context.forward({ key: foreignKey, value: subscription, timestamp: record.timestamp, headers: record.headers });
        };
        // Foreign keys compare by their bytes, as the subscription store and the partitioner see them.
        const changed = (a: KO | null, b: KO | null): boolean =>
          a === null || b === null ? a !== b : !this.foreignKeySerde.serialize(a).equals(this.foreignKeySerde.serialize(b));
        const oldKey = foreignKeyOf(oldValue);
        const newKey = foreignKeyOf(newValue);
        if (leftJoin) {
          if (oldKey !== null && changed(newKey, oldKey)) send(oldKey, Instruction.DELETE_KEY_NO_PROPAGATE);
          if (oldValue !== null || newValue !== null) send(newKey, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE);
          return;
        }
        if (oldKey === null && newKey === null) {
          if (oldValue !== null || newValue !== null) dropRecord(this.context, 'null foreign key in a foreign-key join');
        } else if (oldKey === null) {
          send(newKey, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE);
        } else if (newKey === null) {
          // The left value is gone or has no foreign key any more: its result is deleted.
          send(oldKey, Instruction.DELETE_KEY_AND_PROPAGATE);
        } else if (changed(newKey, oldKey)) {
          send(oldKey, Instruction.DELETE_KEY_NO_PROPAGATE);
          // The new foreign key may have no value: the result set by the old one must be unset.
          send(newKey, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE);
        } else {
          send(newKey, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE);
        }
      }
    })() as Processor;
}

/**
 * Subscriptions as they arrive on the foreign key's partition (Kafka Streams' `SubscriptionReceiveProcessorSupplier`):
 * kept in, or deleted from, the subscription store, and passed on with the one they replace. A null foreign key
 * (left joins only) is passed on without being kept.
 */
export function subscriptionReceiveProcessor<KO>(storeName: string, foreignKeySerde: Serde<KO> | undefined): Supplier {
  return () =>
    new (class extends SubscriptionStoreProcessor<KO | null, Subscription, KO> {
      process(record: StreamRecord<KO | null, Subscription>): void {
        const subscription = record.value;
        const newValue = { value: subscription, timestamp: record.timestamp };
        const key: CombinedKey<KO> = { foreignKey: isNull(record.key) ? null : record.key, primaryKey: subscription.primaryKey };
        if (key.foreignKey === null) {
          if (subscription.instruction !== Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE) {
            dropRecord(this.context, 'null foreign key in a foreign-key join subscription');
            return;
          }
          this.context.forward({ key, value: { newValue, oldValue: null }, timestamp: record.timestamp, headers: record.headers });
          return;
        }
        const storeKey = Buffer.concat([subscriptionPrefix(this.foreignKeySerde.serialize(key.foreignKey)), subscription.primaryKey]);
        const oldValue = this.store.get(storeKey) ?? null;
        const deletes = subscription.instruction === Instruction.DELETE_KEY_AND_PROPAGATE || subscription.instruction === Instruction.DELETE_KEY_NO_PROPAGATE;
        if (deletes) this.store.delete(storeKey);
        else this.store.put(storeKey, newValue);
        this.context.forward({ key, value: { newValue, oldValue }, timestamp: record.timestamp, headers: record.headers });
      }
    })(storeName, foreignKeySerde) as Processor;
}

/**
 * A subscription joined with the right table's value of its foreign key (Kafka Streams'
 * `SubscriptionJoinProcessorSupplier`), answered as its instruction says, keyed by the serialized left key and
 * stamped with the later of both timestamps.
 */
export function subscriptionJoinProcessor<KO, VO>(foreign: ValueGetterSupplier<KO, VO>): Supplier {
  return () =>
    new (class extends ContextProcessor<CombinedKey<KO>, Change<ValueAndTimestamp<Subscription>>> {
      private getter!: ValueGetter<KO, VO>;

      override init(context: ProcessorContext<unknown, unknown>): void {
        super.init(context);
        this.getter = foreign.get(context);
      }

      process(record: StreamRecord<CombinedKey<KO>, Change<ValueAndTimestamp<Subscription>>>): void {
        const current = record.value.newValue!;
        const subscription = current.value;
        const foreignValue = record.key.foreignKey === null ? undefined : this.getter(record.key.foreignKey);
        const timestamp = foreignValue === undefined ? current.timestamp : Math.max(current.timestamp, foreignValue.timestamp);
        const answer = (value: VO | null): void => {
          const response: SubscriptionResponse<VO> = { hash: subscription.hash, foreignValue: value, primaryPartition: subscription.primaryPartition };
          this.context.forward({ key: record.key.primaryKey, value: response, timestamp, headers: record.headers });
        };
        switch (subscription.instruction) {
          case Instruction.DELETE_KEY_AND_PROPAGATE:
            answer(null);
            break;
          case Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE:
            answer(foreignValue?.value ?? null);
            break;
          case Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE:
            if (foreignValue !== undefined) answer(foreignValue.value);
            break;
          case Instruction.DELETE_KEY_NO_PROPAGATE:
            break;
        }
      }
    })() as Processor;
}

/**
 * The right table's updates sent to every subscription of their key (Kafka Streams'
 * `ForeignTableJoinProcessorSupplier`): one range over the key's prefix in the subscription store.
 */
export function foreignTableJoinProcessor<KO, VO>(storeName: string, foreignKeySerde: Serde<KO> | undefined): Supplier {
  return () =>
    new (class extends SubscriptionStoreProcessor<KO, Change<VO>, KO> {
      process(record: StreamRecord<KO, Change<VO>>): void {
        if (isNull(record.key)) {
          dropRecord(this.context, 'null key in a foreign-key join');
          return;
        }
        const prefix = subscriptionPrefix(this.foreignKeySerde.serialize(record.key));
        const subscriptions = this.store.prefixScan(prefix, Serdes.Bytes());
        try {
          for (const { key, value } of subscriptions) {
            const response: SubscriptionResponse<VO> = {
              hash: value.value.hash,
              foreignValue: record.value.newValue,
              primaryPartition: value.value.primaryPartition,
            };
            this.context.forward({ key: key.subarray(prefix.length), value: response, timestamp: record.timestamp, headers: record.headers });
          }
        } finally {
          subscriptions.close();
        }
      }
    })(storeName, foreignKeySerde) as Processor;
}

/**
 * Answers joined with the left table's current value (Kafka Streams' `ResponseJoinProcessorSupplier`), unless that
 * value changed since the subscription was sent (the hashes differ): a newer answer is on its way. A missing foreign
 * value deletes the result, except in a left join while the left value exists.
 */
export function responseJoinProcessor<K, V, VO, VR>(
  primary: ValueGetterSupplier<K, V>,
  valueSerde: Serde<V> | undefined,
  joiner: (value: V | null, foreignValue: VO | null) => VR,
  leftJoin: boolean,
): Supplier {
  return () =>
    new (class extends ContextProcessor<K, SubscriptionResponse<VO>> {
      private getter!: ValueGetter<K, V>;
      private valueSerde!: Serde<V>;

      override init(context: ProcessorContext<unknown, unknown>): void {
        super.init(context);
        this.getter = primary.get(context);
        this.valueSerde = valueSerde ?? (defaultSerdes(context).value as Serde<V>);
      }

      process(record: StreamRecord<K, SubscriptionResponse<VO>>): void {
        const current = this.getter(record.key);
        const response = record.value;
        if (!sameHash(response.hash, valueHash(this.valueSerde, current?.value ?? null))) {
          dropRecord(this.context, 'stale foreign-key join response (the left value changed since)');
          return;
        }
        const result = response.foreignValue === null && (!leftJoin || current === undefined) ? null : joiner(current?.value ?? null, response.foreignValue);
        this.context.forward({ ...record, value: result });
      }
    })() as Processor;
}
