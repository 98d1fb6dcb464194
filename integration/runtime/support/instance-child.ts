/**
 * A child process that runs one StreamsInstance (the word count of examples/word-count.ts, or a table) for the
 * multi-process tests.
 * Started by InstanceProcess (instance-process.ts) with `fork`: the spec comes in SLUICE_IT_CHILD_SPEC (JSON), the
 * instance's events go to the parent over IPC, and the parent's requests (host map, key owners, store contents,
 * close) are answered over IPC. Logs go to stderr, which the parent writes to a file.
 */
import pino from 'pino';
import { Serdes, StreamsBuilder, StreamsInstance } from '../../../src';
import type { KeyValueStore, Topology, TopologySource, ValueAndTimestamp } from '../../../src';
import { WORD_COUNT_STORE, wordCountTopology, wordCountTopologySource } from '../../../examples/word-count';
import { failingLines, failingLinesSource } from './thread-topologies';
import { TABLE_STORE, type ChildEvent, type ChildReply, type ChildRequest, type ChildSpec, type KeyOwner } from './instance-protocol';

function send(message: ChildEvent | ChildReply, then?: () => void): void {
  process.send?.(message, undefined, {}, () => then?.());
}

/** Key → value over the store partitions the instance can query now (or its standby partitions). */
function storeValues(instance: StreamsInstance, store: string, standby = false): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const stores = standby ? instance.standbyStores(store) : instance.queryableStores(store);
  for (const partition of stores.values()) {
    for (const kv of (partition as unknown as KeyValueStore<string, ValueAndTimestamp<unknown>>).all()) values[kv.key] = kv.value.value;
  }
  return values;
}

/** The topology, and where stream threads in workers build it from (word count and failing lines; the table: none). */
function topology(spec: ChildSpec): { topology: Topology; store: string; source?: TopologySource } {
  const failOn = spec.failOnLine;
  if (failOn !== undefined) {
    const args = [spec.input, spec.output, failOn, spec.failIn ?? 'any'] as const;
    return { topology: failingLines(...args), store: WORD_COUNT_STORE, source: failingLinesSource(...args) };
  }
  if (spec.topology !== 'table') {
    const source = wordCountTopologySource(spec.input, spec.output);
    return { topology: wordCountTopology(spec.input, spec.output), store: WORD_COUNT_STORE, source };
  }
  const builder = new StreamsBuilder();
  builder.table<string, string>(spec.input, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, { storeName: TABLE_STORE });
  return { topology: builder.build(), store: TABLE_STORE };
}

async function answer(instance: StreamsInstance, store: string, request: ChildRequest): Promise<unknown> {
  switch (request.op) {
    case 'metadata':
      return instance.allMetadata();
    case 'keyOwners':
      return request.keys.map((key): KeyOwner => {
        const found = instance.keyQueryMetadata(request.store, Buffer.from(key, 'utf8'));
        return { key, partition: found?.partition ?? -1, owner: found?.activeHost?.endpoint ?? null };
      });
    case 'storeValues':
      return storeValues(instance, store);
    case 'standbyValues':
      return storeValues(instance, store, true);
    case 'threads':
      return instance.threads();
    case 'state':
      return { state: instance.state, lastError: instance.lastError?.message ?? null };
    case 'close':
      await instance.close({ timeoutMs: request.timeoutMs });
      return { state: instance.state };
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.env.SLUICE_IT_CHILD_SPEC ?? 'null') as ChildSpec | null;
  if (!spec) throw new Error('SLUICE_IT_CHILD_SPEC is not set');
  const logger = pino({ level: spec.logLevel, base: { child: spec.name } }, pino.destination(2));
  const { topology: built, store, source } = topology(spec);
  const instance = new StreamsInstance(built, spec.config, { logger, ...(source ? { topologySource: source } : {}) });
  instance.on('state', (change) => send({ kind: 'event', event: 'state', payload: change }));
  instance.on('rebalance', (event) => send({ kind: 'event', event: 'rebalance', payload: event }));
  instance.on('restore', (event) => send({ kind: 'event', event: 'restore', payload: event }));
  instance.on('error', (error) => send({ kind: 'event', event: 'error', payload: { message: error.message } }));
  process.on('message', (message: ChildRequest) => {
    answer(instance, store, message).then(
      // After a close the process has nothing left to do: it ends once the answer is out.
      (result) => send({ kind: 'reply', id: message.id, result }, message.op === 'close' ? () => process.exit(0) : undefined),
      (error: unknown) => send({ kind: 'reply', id: message.id, error: String(error instanceof Error ? error.stack : error) }),
    );
  });
  // The parent going away (a crashed test run) must not leave this process behind.
  process.on('disconnect', () => process.exit(3));
  await instance.start();
}

main().catch((error: unknown) => {
  process.stderr.write(`instance child failed: ${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
