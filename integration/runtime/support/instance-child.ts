/**
 * A child process that runs one word-count StreamsInstance (examples/word-count.ts) for the multi-process tests.
 * Started by InstanceProcess (instance-process.ts) with `fork`: the spec comes in SLUICE_IT_CHILD_SPEC (JSON), the
 * instance's events go to the parent over IPC, and the parent's requests (host map, key owners, store contents,
 * close) are answered over IPC. Logs go to stderr, which the parent writes to a file.
 */
import pino from 'pino';
import { StreamsInstance } from '../../../src';
import type { KeyValueStore, ValueAndTimestamp } from '../../../src';
import { WORD_COUNT_STORE, wordCountTopology } from '../../../examples/word-count';
import type { ChildEvent, ChildReply, ChildRequest, ChildSpec, KeyOwner } from './instance-protocol';

function send(message: ChildEvent | ChildReply, then?: () => void): void {
  process.send?.(message, undefined, {}, () => then?.());
}

function storeCounts(instance: StreamsInstance, standby = false): Record<string, number> {
  const counts: Record<string, number> = {};
  const stores = standby ? instance.standbyStores(WORD_COUNT_STORE) : instance.queryableStores(WORD_COUNT_STORE);
  for (const store of stores.values()) {
    for (const kv of (store as unknown as KeyValueStore<string, ValueAndTimestamp<number>>).all()) counts[kv.key] = kv.value.value;
  }
  return counts;
}

async function answer(instance: StreamsInstance, request: ChildRequest): Promise<unknown> {
  switch (request.op) {
    case 'metadata':
      return instance.allMetadata();
    case 'keyOwners':
      return request.keys.map((key): KeyOwner => {
        const found = instance.keyQueryMetadata(request.store, Buffer.from(key, 'utf8'));
        return { key, partition: found?.partition ?? -1, owner: found?.activeHost?.endpoint ?? null };
      });
    case 'storeCounts':
      return storeCounts(instance);
    case 'standbyCounts':
      return storeCounts(instance, true);
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
  const instance = new StreamsInstance(wordCountTopology(spec.input, spec.output), spec.config, { logger });
  instance.on('state', (change) => send({ kind: 'event', event: 'state', payload: change }));
  instance.on('rebalance', (event) => send({ kind: 'event', event: 'rebalance', payload: event }));
  instance.on('restore', (event) => send({ kind: 'event', event: 'restore', payload: event }));
  instance.on('error', (error) => send({ kind: 'event', event: 'error', payload: { message: error.message } }));
  process.on('message', (message: ChildRequest) => {
    answer(instance, message).then(
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
