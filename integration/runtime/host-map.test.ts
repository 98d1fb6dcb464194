/**
 * Issue 4, "Must show": both nodes' host maps list both nodes with their endpoints and partitions, and agree on
 * the owner of any key. Two instances with distinct `application.server` and `grpc.endpoint`, each with its own
 * state directory; a count per key over a 4-partition input, so that both instances host part of the store. The
 * owner a host map names for a key is checked against the stores themselves: it holds the key, the other does not.
 * (two-process-failover.test.ts checks the same agreement between two OS processes.)
 */
import { Serdes, StreamsBuilder, StreamsInstance } from '../../src';
import type { KeyValueStore, Topology, ValueAndTimestamp } from '../../src';
import { partitionForKey } from '../../src/streams/kafka/murmur2';
import type { StreamsMetadata } from '../../src/streams/runtime/streams-metadata';
import { createTopics } from '../../src/streams/kafka';
import { BROKER_TEST_TIMEOUT_MS, bootstrapServers, uniqueName } from '../support/kafka';
import { tempStateDir, testLogger, waitFor } from '../support/streams';
import { instancesUnderTest } from './support/stop-anyway';

const PARTITIONS = 4;
const KEYS = 200;
const STORE = 'per-key';
const KEY_PREFIX = 'key-';
const keyOf = (i: number) => `${KEY_PREFIX}${String(i).padStart(3, '0')}`;
const ALL_KEYS = Array.from({ length: KEYS }, (_, i) => keyOf(i));
const NODE_A = { server: '127.0.0.1:17101', grpc: '127.0.0.1:18101' };
const NODE_B = { server: '127.0.0.1:17102', grpc: '127.0.0.1:18102' };

function countPerKey(input: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .groupByKey()
    .count({ storeName: STORE });
  return builder.build();
}

/** What two host maps must agree on: everything but `isLocal`. */
const shared = (hosts: StreamsMetadata[]) =>
  hosts.map((h) => ({
    processId: h.processId,
    endpoint: h.endpoint,
    host: h.host,
    port: h.port,
    grpcEndpoint: h.grpcEndpoint,
    stores: h.stateStoreNames,
    partitions: h.topicPartitions,
  }));

describe('host map of two instances', () => {
  const { clients, instances } = instancesUnderTest();

  it(
    'lists both nodes with endpoints and partitions, the same on both, with agreed key owners that hold the keys',
    async () => {
      const applicationId = uniqueName('host-map');
      const input = uniqueName('host-map-in');
      const admin = await clients.admin();
      await createTopics(admin, [{ name: input, partitions: PARTITIONS }]);
      const producer = await clients.producer();
      await producer.send({ topic: input, messages: ALL_KEYS.map((key) => ({ key, value: 'x' })) });

      const create = (node: { server: string; grpc: string }) => {
        const instance = new StreamsInstance(
          countPerKey(input),
          {
            'application.id': applicationId,
            'bootstrap.servers': bootstrapServers().join(','),
            'application.server': node.server,
            'grpc.endpoint': node.grpc,
            'state.dir': tempStateDir(),
            'commit.interval.ms': 200,
            'session.timeout.ms': 6000,
            'heartbeat.interval.ms': 1000,
          },
          { logger: testLogger },
        );
        instances.push(instance);
        return instance;
      };
      const a = create(NODE_A);
      const b = create(NODE_B);

      // Before the first assignment the host map is not available.
      expect(a.allMetadata()).toEqual([]);
      expect(a.metadataForStore(STORE)).toEqual([]);
      expect(a.keyQueryMetadata(STORE, Buffer.from(keyOf(0)))).toBeUndefined();

      await a.start();
      await waitFor(() => a.state === 'RUNNING', 'node A to run', 30_000);
      await b.start();
      const started = Date.now();
      const complete = (instance: StreamsInstance) =>
        instance.state === 'RUNNING' &&
        instance.allMetadata().length === 2 &&
        instance.allMetadata().flatMap((h) => h.topicPartitions).length === PARTITIONS;
      await waitFor(() => complete(a) && complete(b), 'both instances running, each with a host map of both', 40_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\nA (${a.state}): ${JSON.stringify(a.allMetadata())}\nB (${b.state}): ${JSON.stringify(b.allMetadata())}`);
      });
      process.stderr.write(`host map: both maps complete ${Date.now() - started} ms after node B started\n`);
      // Every key counted once, in the store of one of the two.
      const local = (instance: StreamsInstance) => instance.queryableStores(STORE) as unknown as Map<number, KeyValueStore<string, ValueAndTimestamp<number>>>;
      const counted = () => [...local(a).values(), ...local(b).values()].reduce((n, store) => n + [...store.all()].length, 0);
      await waitFor(() => counted() === KEYS, `all ${KEYS} keys in the stores`, 30_000);

      const [mapA, mapB] = [a.allMetadata(), b.allMetadata()];
      // Both nodes, with both endpoints, on both sides; each marks itself local.
      expect(shared(mapA)).toEqual(shared(mapB));
      expect(mapA.map((h) => [h.endpoint, h.host, h.port, h.grpcEndpoint])).toEqual([
        [NODE_A.server, '127.0.0.1', 17101, NODE_A.grpc],
        [NODE_B.server, '127.0.0.1', 17102, NODE_B.grpc],
      ]);
      expect(mapA.map((h) => h.isLocal)).toEqual([true, false]);
      expect(mapB.map((h) => h.isLocal)).toEqual([false, true]);
      expect(new Set(mapA.map((h) => h.processId)).size).toBe(2);
      // The partitions: split between the two (each has some), none twice, together all of them; both host the store.
      for (const host of mapA) {
        expect(host.topicPartitions.length).toBeGreaterThan(0);
        expect(host.stateStoreNames).toEqual([STORE]);
        expect(host.topicPartitions.every((tp) => tp.topic === input)).toBe(true);
      }
      expect(mapA.flatMap((h) => h.topicPartitions.map((tp) => tp.partition)).sort()).toEqual([0, 1, 2, 3]);
      expect(a.metadataForStore(STORE).map((h) => h.endpoint)).toEqual([NODE_A.server, NODE_B.server]);
      expect(b.metadataForStore(STORE).map((h) => h.endpoint)).toEqual([NODE_A.server, NODE_B.server]);
      expect(a.metadataForStore('no-such-store')).toEqual([]);
      // The map matches what each instance actually runs.
      for (const [instance, host] of [
        [a, mapA[0]!],
        [b, mapA[1]!],
      ] as const) {
        const running = instance.threads().flatMap((t) => t.activeTasks.flatMap((task) => task.topicPartitions.map((tp) => tp.partition)));
        expect(running.sort()).toEqual(host.topicPartitions.map((tp) => tp.partition).sort());
      }

      // Key owners: the same on both, murmur2's partition, the host of that partition, which holds the key.
      for (const key of [...ALL_KEYS, 'not-produced-1', 'not-produced-2', '']) {
        const bytes = Buffer.from(key, 'utf8');
        const [fromA, fromB] = [a.keyQueryMetadata(STORE, bytes), b.keyQueryMetadata(STORE, bytes)];
        const partition = partitionForKey(bytes, PARTITIONS);
        const expectedOwner = mapA.find((h) => h.topicPartitions.some((tp) => tp.partition === partition))!.endpoint;
        expect({ key, partition: fromA?.partition, owner: fromA?.activeHost?.endpoint }).toEqual({ key, partition, owner: expectedOwner });
        expect({ key, partition: fromB?.partition, owner: fromB?.activeHost?.endpoint }).toEqual({ key, partition, owner: expectedOwner });
        expect(fromA?.activeHost?.isLocal).toBe(expectedOwner === NODE_A.server);
        expect(fromB?.activeHost?.isLocal).toBe(expectedOwner === NODE_B.server);
        if (!key.startsWith(KEY_PREFIX)) continue;
        const [owner, other] = expectedOwner === NODE_A.server ? [a, b] : [b, a];
        expect({ key, owner: local(owner).get(partition)?.get(key)?.value }).toEqual({ key, owner: 1 });
        expect({ key, other: local(other).has(partition) }).toEqual({ key, other: false });
      }
      expect(a.keyQueryMetadata('no-such-store', Buffer.from(keyOf(0)))).toBeUndefined();

      // B leaves: A's map shrinks to A alone with every partition, and A owns every key.
      await b.close();
      await waitFor(
        () => a.state === 'RUNNING' && a.allMetadata().length === 1 && a.allMetadata()[0]!.topicPartitions.length === PARTITIONS,
        'node A to hold every partition alone',
        30_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\nA (${a.state}): ${JSON.stringify(a.allMetadata())}`);
      });
      expect(a.allMetadata()[0]!.endpoint).toBe(NODE_A.server);
      expect(ALL_KEYS.every((key) => a.keyQueryMetadata(STORE, Buffer.from(key))?.activeHost?.endpoint === NODE_A.server)).toBe(true);
      // A closed instance no longer claims to know the cluster.
      expect(b.allMetadata()).toEqual([]);
      await a.close();
      expect(a.allMetadata()).toEqual([]);
    },
    BROKER_TEST_TIMEOUT_MS,
  );
});
