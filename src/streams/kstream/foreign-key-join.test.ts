import type { ProcessorContext } from '../processor/processor';
import type { StreamRecord } from '../processor/record';
import { Serdes } from '../serdes/serdes';
import type { KeyValue, ValueAndTimestamp } from '../state/store';
import { TopologyTestDriver } from '../test-driver/topology-test-driver';
import {
  foreignTableJoinProcessor,
  Instruction,
  responseJoinProcessor,
  responseSerde,
  type Subscription,
  subscriptionJoinProcessor,
  subscriptionPrefix,
  subscriptionReceiveProcessor,
  subscriptionSendProcessor,
  subscriptionSerde,
  valueHash,
} from './internals/foreign-key-join';
import { murmur3Hash128 } from './internals/murmur3';
import { StreamsBuilder } from './streams-builder';

const STRING = Serdes.String();
const hashOf = (value: string): Buffer => murmur3Hash128(Buffer.from(value));

/** A task's context as the DSL's processors see it: what they forward and drop, from partition 3 of task 1_3. */
function fakeContext(stores: Record<string, unknown> = {}) {
  const forwarded: StreamRecord<unknown, unknown>[] = [];
  const dropped: string[] = [];
  const context = {
    taskId: '1_3',
    forward: (record: StreamRecord<unknown, unknown>) => forwarded.push(record),
    getStateStore: (name: string) => stores[name],
    recordMetadata: () => ({ topic: 'orders', partition: 3, offset: 0 }),
    recordDropped: (reason: string) => dropped.push(reason),
    asCurrentNode: () => (fn: () => void) => fn(),
    defaultSerdes: () => ({ key: STRING, value: STRING }),
  } as unknown as ProcessorContext<unknown, unknown>;
  return { context, forwarded, dropped };
}

function processOne(supplier: () => unknown, context: ProcessorContext<unknown, unknown>, record: StreamRecord<unknown, unknown>): void {
  const processor = supplier() as { init(c: ProcessorContext<unknown, unknown>): void; process(r: StreamRecord<unknown, unknown>): void };
  processor.init(context);
  processor.process(record);
}

const update = (key: string, newValue: string | null, oldValue: string | null): StreamRecord<unknown, unknown> => ({
  key,
  value: { newValue, oldValue },
  timestamp: 10,
  headers: {},
});

describe('murmur3 128-bit', () => {
  it.each([
    ['', '9d2764a018e329428c3cf3b035938518'],
    ['a', '3361634e7e0f5188e9c7dda24eae326b'],
    ['hello', '30bfb4f39919e764566aea857401d1c6'],
    ['0123456789abcdef', '1a6e941ec6a76967d7d82808f505d6b1'],
    ['0123456789abcdefXYZ0123456', '51ba0e0db28d0c575ebec089d0526c42'],
    ['p1:x', '3d9ad7519836f11989891fc50e793275'],
  ])('hashes %j as Kafka Streams Murmur3.hash128 does', (input, expected) => {
    expect(hashOf(input).toString('hex')).toBe(expected);
  });
});

describe('subscription and response serdes', () => {
  it("writes subscriptions in Kafka Streams' version-1 layout and reads them back", () => {
    const subscription: Subscription = { hash: hashOf('v'), instruction: Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, primaryKey: Buffer.from('pk'), primaryPartition: 7 };
    const bytes = subscriptionSerde.serialize(subscription);
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([1, 3]));
    expect(bytes.subarray(2, 18)).toEqual(subscription.hash);
    expect(bytes.subarray(18, 20).toString()).toBe('pk');
    expect(bytes.readInt32BE(20)).toBe(7);
    expect(subscriptionSerde.deserialize(bytes)).toEqual(subscription);
    const noHash = { ...subscription, hash: null, instruction: Instruction.DELETE_KEY_AND_PROPAGATE };
    expect(subscriptionSerde.serialize(noHash)[0]).toBe(0x81);
    expect(subscriptionSerde.deserialize(subscriptionSerde.serialize(noHash))).toEqual(noHash);
  });

  it('writes responses without their partition; an empty foreign value reads back as null, as in Kafka Streams', () => {
    const serde = responseSerde(STRING);
    const response = { hash: hashOf('v'), foreignValue: 'fv', primaryPartition: 2 };
    expect(serde.deserialize(serde.serialize(response))).toEqual({ ...response, primaryPartition: -1 });
    expect(serde.deserialize(serde.serialize({ hash: null, foreignValue: '', primaryPartition: 0 }))).toEqual({ hash: null, foreignValue: null, primaryPartition: -1 });
  });

  it('prefixes store keys with the length of the foreign key, so that one key is not a prefix of another', () => {
    expect(subscriptionPrefix(Buffer.from('ab'))).toEqual(Buffer.from([0, 0, 0, 2, 0x61, 0x62]));
  });
});

describe('subscription send', () => {
  const fk = (value: string): string | null => (value.includes(':') ? value.split(':')[0]! : null);
  const send = (leftJoin: boolean, newValue: string | null, oldValue: string | null) => {
    const { context, forwarded, dropped } = fakeContext();
    processOne(subscriptionSendProcessor(fk, leftJoin, {}), context, update('k', newValue, oldValue));
    return {
      sent: forwarded.map((r) => [r.key, (r.value as Subscription).instruction]),
      forwarded: forwarded as StreamRecord<string | null, Subscription>[],
      dropped,
    };
  };
  const { DELETE_KEY_NO_PROPAGATE: NO_PROPAGATE, DELETE_KEY_AND_PROPAGATE: DELETE, PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE: NULL_IF_NONE, PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE: ONLY_IF_ANY } =
    Instruction;

  it.each([
    ['a new key', 'a:1', null, [['a', ONLY_IF_ANY]]],
    ['an update keeping its foreign key', 'a:2', 'a:1', [['a', ONLY_IF_ANY]]],
    ['a foreign key change', 'b:2', 'a:1', [['a', NO_PROPAGATE], ['b', NULL_IF_NONE]]],
    ['a delete', null, 'a:1', [['a', DELETE]]],
    ['a lost foreign key', 'none', 'a:1', [['a', DELETE]]],
    ['a found foreign key', 'a:1', 'none', [['a', ONLY_IF_ANY]]],
    ['a new key without foreign key', 'none', null, []],
  ])('inner join: %s', (_case, newValue, oldValue, expected) => {
    expect(send(false, newValue, oldValue).sent).toEqual(expected);
  });

  it.each([
    ['a new key', 'a:1', null, [['a', NULL_IF_NONE]]],
    ['a foreign key change', 'b:2', 'a:1', [['a', NO_PROPAGATE], ['b', NULL_IF_NONE]]],
    ['a delete', null, 'a:1', [['a', NO_PROPAGATE], [null, NULL_IF_NONE]]],
    ['a new key without foreign key', 'none', null, [[null, NULL_IF_NONE]]],
  ])('left join: %s', (_case, newValue, oldValue, expected) => {
    expect(send(true, newValue, oldValue).sent).toEqual(expected);
  });

  it('carries the serialized left key, its partition and the hash of the new value (null for a delete)', () => {
    const [change] = send(false, 'a:2', 'a:1').forwarded;
    expect(change!.value).toEqual({ hash: hashOf('a:2'), instruction: ONLY_IF_ANY, primaryKey: Buffer.from('k'), primaryPartition: 3 });
    const [deleted] = send(false, null, 'a:1').forwarded;
    expect(deleted!.value.hash).toBeNull();
  });

  it('counts an inner join update without foreign key as dropped', () => {
    expect(send(false, 'none', null).dropped).toHaveLength(1);
  });
});

describe('subscription receive and the right table', () => {
  const subscription = (instruction: Instruction, key = 'k'): Subscription => ({ hash: hashOf('v'), instruction, primaryKey: Buffer.from(key), primaryPartition: 1 });

  /** A subscription store that records its calls. */
  function fakeStore(entries: KeyValue<Buffer, ValueAndTimestamp<Subscription>>[] = []) {
    const calls: string[] = [];
    const data = new Map(entries.map((e) => [e.key.toString('hex'), e.value]));
    const store = {
      get: (key: Buffer) => data.get(key.toString('hex')),
      put: (key: Buffer, value: ValueAndTimestamp<Subscription>) => {
        calls.push(`put ${key.toString('hex')}`);
        data.set(key.toString('hex'), value);
      },
      delete: (key: Buffer) => {
        calls.push(`delete ${key.toString('hex')}`);
        data.delete(key.toString('hex'));
      },
      prefixScan: (prefix: Buffer) => {
        calls.push(`prefixScan ${prefix.toString('hex')}`);
        const found = entries.filter((e) => e.key.subarray(0, prefix.length).equals(prefix));
        return Object.assign(found[Symbol.iterator](), { close: () => calls.push('close') });
      },
      all: () => {
        throw new Error('a foreign-key join must not scan the whole store');
      },
    };
    return { store, calls };
  }

  const storeKey = (fk: string, pk: string): Buffer => Buffer.concat([subscriptionPrefix(Buffer.from(fk)), Buffer.from(pk)]);

  it('keeps a subscription under (foreign key, primary key), deletes it on a delete instruction, and passes both on', () => {
    const { store, calls } = fakeStore();
    const { context, forwarded } = fakeContext({ subs: store });
    const receive = subscriptionReceiveProcessor<string>('subs', undefined);
    processOne(receive, context, { key: 'fk', value: subscription(Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE), timestamp: 5, headers: {} });
    processOne(receive, context, { key: 'fk', value: subscription(Instruction.DELETE_KEY_NO_PROPAGATE), timestamp: 6, headers: {} });
    expect(calls).toEqual([`put ${storeKey('fk', 'k').toString('hex')}`, `delete ${storeKey('fk', 'k').toString('hex')}`]);
    expect(forwarded.map((r) => (r.value as { oldValue: ValueAndTimestamp<Subscription> | null }).oldValue?.timestamp ?? null)).toEqual([null, 5]);
  });

  it('passes a null foreign key on without keeping it only for a left join; drops it otherwise', () => {
    const { store, calls } = fakeStore();
    const { context, forwarded, dropped } = fakeContext({ subs: store });
    const receive = subscriptionReceiveProcessor<string>('subs', undefined);
    processOne(receive, context, { key: null, value: subscription(Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE), timestamp: 5, headers: {} });
    processOne(receive, context, { key: null, value: subscription(Instruction.DELETE_KEY_AND_PROPAGATE), timestamp: 5, headers: {} });
    expect(calls).toEqual([]);
    expect(forwarded).toHaveLength(1);
    expect(dropped).toHaveLength(1);
  });

  it("answers a right table update to the subscriptions of its key only, through one range over the key's prefix", () => {
    const at = (fk: string, pk: string) => ({ key: storeKey(fk, pk), value: { value: subscription(Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE, pk), timestamp: 1 } });
    const { store, calls } = fakeStore([at('a', 'k1'), at('a', 'k2'), at('ab', 'k3')]);
    const { context, forwarded } = fakeContext({ subs: store });
    processOne(foreignTableJoinProcessor<string, string>('subs', undefined), context, update('a', 'A', null));
    expect(calls).toEqual([`prefixScan ${subscriptionPrefix(Buffer.from('a')).toString('hex')}`, 'close']);
    expect(forwarded.map((r) => [(r.key as Buffer).toString(), (r.value as { foreignValue: string }).foreignValue, r.timestamp])).toEqual([
      ['k1', 'A', 10],
      ['k2', 'A', 10],
    ]);
  });

  it('answers a subscription as its instruction says, stamped with the later timestamp', () => {
    const right = new Map([['fk', { value: 'FV', timestamp: 20 }]]);
    const getter = { storeNames: [], get: () => (key: string) => right.get(key) };
    const answers = (fk: string | null, instruction: Instruction) => {
      const { context, forwarded } = fakeContext();
      const value = { newValue: { value: subscription(instruction), timestamp: 15 }, oldValue: null };
      processOne(subscriptionJoinProcessor(getter), context, { key: { foreignKey: fk, primaryKey: Buffer.from('k') }, value, timestamp: 15, headers: {} });
      return forwarded.map((r) => [(r.value as { foreignValue: unknown }).foreignValue, r.timestamp]);
    };
    expect(answers('fk', Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE)).toEqual([['FV', 20]]);
    expect(answers('none', Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE)).toEqual([]);
    expect(answers('none', Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)).toEqual([[null, 15]]);
    expect(answers(null, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)).toEqual([[null, 15]]);
    expect(answers('fk', Instruction.DELETE_KEY_AND_PROPAGATE)).toEqual([[null, 20]]);
    expect(answers('fk', Instruction.DELETE_KEY_NO_PROPAGATE)).toEqual([]);
  });
});

describe('response join', () => {
  const left = new Map<string, ValueAndTimestamp<string>>([['k', { value: 'v2', timestamp: 1 }]]);
  const getter = { storeNames: [], get: () => (key: string) => left.get(key) };
  const respond = (leftJoin: boolean, key: string, hash: Buffer | null, foreignValue: string | null) => {
    const { context, forwarded, dropped } = fakeContext();
    const joiner = (value: string | null, fv: string | null) => `${value}+${fv}`;
    processOne(responseJoinProcessor(getter, undefined, joiner, leftJoin), context, { key, value: { hash, foreignValue, primaryPartition: -1 }, timestamp: 9, headers: {} });
    return { results: forwarded.map((r) => r.value), dropped };
  };

  it('drops a stale response: one sent for a left value that has changed since', () => {
    expect(respond(false, 'k', hashOf('v1'), 'fv')).toEqual({ results: [], dropped: [expect.stringContaining('stale')] });
    expect(respond(true, 'k', null, null).results).toEqual([]);
  });

  it('joins a response for the current left value; a missing foreign value deletes the result of an inner join', () => {
    expect(respond(false, 'k', hashOf('v2'), 'fv').results).toEqual(['v2+fv']);
    expect(respond(false, 'k', hashOf('v2'), null).results).toEqual([null]);
    expect(respond(true, 'k', hashOf('v2'), null).results).toEqual(['v2+null']);
    expect(respond(true, 'gone', null, null).results).toEqual([null]);
  });

  it('hashes the serialized left value', () => {
    expect(valueHash(STRING, 'v2')).toEqual(hashOf('v2'));
    expect(valueHash(STRING, null)).toBeNull();
  });
});

describe('foreign-key joins through the topology test driver', () => {
  it('joins orders with products, follows product changes, and drops subscriptions of a foreign key that was left', async () => {
    const builder = new StreamsBuilder();
    const orders = builder.table<string, string>('orders');
    const products = builder.table<string, string>('products');
    orders.join(products, (order) => order.split('/')[0], (order, product) => `${order} of ${product}`, { name: 'enriched', materialized: { storeName: 'enriched-store' } });
    orders.leftJoin(products, (order, key) => (key.startsWith('x') ? null : order.split('/')[0]), (order, product) => `${order} of ${product}`).toStream().to('left');
    const driver = new TopologyTestDriver(builder.build(), { 'application.id': 'fk' }, 0);
    try {
      const orderInput = driver.createInputTopic('orders', STRING, STRING);
      const productInput = driver.createInputTopic('products', STRING, STRING);
      const leftOut = driver.createOutputTopic('left', STRING, STRING);
      productInput.pipeInput('p1', 'apples', 1);
      orderInput.pipeInput('o1', 'p1/2', 2);
      orderInput.pipeInput('x1', 'p1/3', 3);
      orderInput.pipeInput('o1', 'p2/5', 4);
      productInput.pipeInput('p1', 'green apples', 5);
      productInput.pipeInput('p2', 'pears', 6);
      const results = driver.getTimestampedKeyValueStore<string, string>('enriched-store');
      expect(results.get('o1')).toEqual({ value: 'p2/5 of pears', timestamp: 6 });
      expect(results.get('x1')).toEqual({ value: 'p1/3 of green apples', timestamp: 5 });
      expect(leftOut.readKeyValuesToList()).toEqual([
        { key: 'o1', value: 'p1/2 of apples' },
        { key: 'x1', value: 'p1/3 of null' },
        { key: 'o1', value: 'p2/5 of null' },
        { key: 'o1', value: 'p2/5 of pears' },
      ]);
      const subscriptions = driver.getTimestampedKeyValueStore<Buffer, Subscription>('enriched-subscription-store');
      expect([...subscriptions.all()].map((e) => e.key.subarray(4).toString())).toEqual(['p1x1', 'p2o1']);
    } finally {
      await driver.close();
    }
  });
});
