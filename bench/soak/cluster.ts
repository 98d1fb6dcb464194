/**
 * The soak's nodes: `sluice start` processes of one word-count application (examples/word-count.ts, store `count`),
 * each with its own HTTP and gRPC port and state directory on loopback, and a typed client of each.
 */
import * as path from 'node:path';
import { SluiceClient } from '../../src/client';
import { WORD_COUNT_STORE } from '../../examples/word-count';
import { sleep } from '../support/program';
import { freePort } from '../../src/host/free-ports';
import { startSluiceNode, waitReady, type SluiceNode } from '../support/sluice-node';

export const APPLICATION_ID = 'soak-word-count';
export const STORE = WORD_COUNT_STORE;

const READY_WITHIN_MS = 120_000;
const POLL_MS = 500;
/** The client's limit on an answer; a query slower than this is an error (ServerUnreachable). */
const QUERY_TIMEOUT_MS = 30_000;

export interface SoakNode {
  readonly process: SluiceNode;
  readonly client: SluiceClient;
}

/** Starts `count` nodes under `workDir` and waits until each is ready. */
export async function startNodes(count: number, workDir: string, bootstrapServers: string): Promise<SoakNode[]> {
  const nodes = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = `node-${String.fromCharCode(97 + i)}`;
      const dir = path.join(workDir, name);
      const sluice = await startSluiceNode(name, dir, {
        server: { host: '127.0.0.1', port: await freePort(), grpcPort: await freePort(), advertisedHost: '127.0.0.1' },
        log: { level: 'warn' },
        streams: { 'bootstrap.servers': bootstrapServers, 'state.dir': path.join(dir, 'state'), 'commit.interval.ms': 1000 },
        // Compiled, beside this benchmark in dist/.
        topologies: [{ module: path.join(__dirname, '..', '..', 'examples') }],
        instances: [{ topology: 'word-count', applicationId: APPLICATION_ID }],
      });
      return { process: sluice, client: new SluiceClient({ url: sluice.url, timeoutMs: QUERY_TIMEOUT_MS }) };
    }),
  );
  try {
    await Promise.all(nodes.map((node) => waitReady(node.process, READY_WITHIN_MS)));
  } catch (error) {
    await stopNodes(nodes);
    throw error;
  }
  return nodes;
}

/** Waits until every node holds some of the store and the store holds every word of the vocabulary. */
export async function waitCounted(nodes: readonly SoakNode[], vocabulary: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = 'no answer';
  for (;;) {
    try {
      const answer = await nodes[0]!.client.query(APPLICATION_ID, STORE, { type: 'key_value', query: { count: {} } });
      const words = answer.result.success.reduce((sum, part) => sum + Number(part.records[0]?.value ?? 0), 0);
      seen = `${answer.status}, ${answer.result.success.length} parts, ${words} words`;
      if (answer.status === 'SUCCESS' && answer.result.success.length === nodes.length && words === vocabulary) return;
    } catch (error) {
      seen = (error as Error).message;
    }
    for (const node of nodes) {
      const failure = node.process.failure();
      if (failure !== undefined) throw new Error(failure);
    }
    if (Date.now() > deadline) throw new Error(`the store did not hold the ${vocabulary} words on ${nodes.length} nodes within ${timeoutMs / 1000} s: ${seen}`);
    await sleep(POLL_MS);
  }
}

export async function stopNodes(nodes: readonly SoakNode[]): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      await node.client.close();
      await node.process.stop();
    }),
  );
}
