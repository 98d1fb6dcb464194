import * as net from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { UnknownApplication } from '../errors';
import type { PeerQueryHandler } from '../query/peers';
import type { StreamsMetadata } from '../streams/runtime/streams-metadata';
import { clusterTimeline, mergeTimelines, type TimelineEntryJson } from './cluster-timeline';
import { PeerClient } from './peer-client';
import { startPeerServer, type PeerServer } from './peer-server';
import { peerService } from './peer-service';
import { closedPort } from './testing/loopback-peers';

const HANDLER: PeerQueryHandler = {
  answerPeer: () => Promise.reject(new Error('not asked')),
  streamPeer: () => Promise.reject(new Error('not asked')),
  describeStore: () => undefined,
};

function entry(processId: string, id: number, startedAt: string, extra: object = {}): TimelineEntryJson {
  return { process_id: processId, id, started_at: `${startedAt}[UTC]`, ...extra } as TimelineEntryJson;
}

function host(processId: string, grpcEndpoint: string | undefined, isLocal = false): StreamsMetadata {
  return {
    processId,
    endpoint: `${processId}:8080`,
    host: processId,
    port: 8080,
    grpcEndpoint,
    stateStoreNames: [],
    topicPartitions: [],
    standbyStateStoreNames: [],
    standbyTopicPartitions: [],
    isLocal,
  };
}

describe('mergeTimelines', () => {
  it('orders every node’s entries by start time, then by process and number', () => {
    const a = [entry('a', 1, '2026-11-28T03:00:00.000Z'), entry('a', 2, '2026-11-28T03:00:02.000Z')];
    const b = [entry('b', 1, '2026-11-28T03:00:01.000Z'), entry('b', 2, '2026-11-28T03:00:02.000Z')];
    expect(mergeTimelines([b, a]).map((e) => `${e.process_id}${e.id}`)).toEqual(['a1', 'b1', 'a2', 'b2']);
  });
});

describe('the cluster’s timeline over the peer service', () => {
  const servers: PeerServer[] = [];
  let client: PeerClient;
  /** A node of this version, one of the previous (no Timeline call), and one that answers garbage. */
  let current: string;
  let previous: string;
  let legacyServer: grpc.Server;

  beforeAll(async () => {
    client = new PeerClient();
    const node = await startPeerServer({
      host: '127.0.0.1',
      port: 0,
      handler: HANDLER,
      timeline: (applicationId) => {
        if (applicationId !== 'wc') throw new UnknownApplication(applicationId);
        return [entry('b', 1, '2026-11-28T03:00:01.000Z', { type: 'rebalance' }), entry('b', 2, '2026-11-28T03:00:03.000Z', { type: 'restore' })];
      },
    });
    servers.push(node);
    current = `127.0.0.1:${node.port}`;
    // A node of the previous version: the service without Timeline, which grpc-js answers UNIMPLEMENTED.
    const { Timeline: _dropped, ...previousService } = peerService();
    legacyServer = new grpc.Server();
    legacyServer.addService(previousService as unknown as grpc.ServiceDefinition, {});
    const port = await new Promise<number>((resolve, reject) =>
      legacyServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    previous = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    client.close();
    legacyServer.forceShutdown();
    await Promise.all(servers.map((server) => server.close(0)));
  });

  it('answers a node’s own timeline, and an unknown application as a failure, not a failed call', async () => {
    const answer = await client.timeline(current, 'wc', Date.now() + 2000);
    expect(answer).toEqual({ ok: true, entries: [expect.objectContaining({ process_id: 'b', id: 1 }), expect.objectContaining({ process_id: 'b', id: 2 })] });
    expect(await client.timeline(current, 'nope', Date.now() + 2000)).toEqual({
      ok: false,
      kind: 'UNKNOWN_STORE',
      messages: ["No application 'nope' in this process"],
      timedOut: false,
    });
  });

  it('names a node of the previous version, one that is down and one without a gRPC endpoint as failures, and merges the rest', async () => {
    const down = `127.0.0.1:${await closedPort()}`;
    const local = [entry('a', 1, '2026-11-28T03:00:00.000Z', { type: 'rebalance' }), entry('a', 2, '2026-11-28T03:00:02.000Z', { type: 'rebalance' })];
    const timeline = await clusterTimeline({
      applicationId: 'wc',
      hosts: [host('a', 'unused', true), host('b', current), host('c', previous), host('d', down), host('e', undefined)],
      local: { server: 'a:8080', entries: local },
      peers: client,
      deadline: Date.now() + 3000,
    });
    expect(timeline.entries.map((e) => `${e.process_id}${e.id}`)).toEqual(['a1', 'b1', 'a2', 'b2']);
    expect(timeline.success).toEqual([
      { server: 'a:8080', processId: 'a', remote: false, total: 2 },
      { server: 'b:8080', processId: 'b', remote: true, total: 2 },
    ]);
    expect(timeline.failure).toEqual([
      expect.objectContaining({ server: 'c:8080', processId: 'c', messages: ['the node runs an earlier version of Sluice, which does not tell its timeline to other nodes'] }),
      expect.objectContaining({ server: 'd:8080', processId: 'd', messages: [expect.stringMatching(/^unreachable: /)] }),
      expect.objectContaining({ server: 'e:8080', processId: 'e', messages: [expect.stringContaining('no gRPC endpoint')] }),
    ]);
  });

  it('leaves out a node whose entries this node cannot read, and names it', async () => {
    const timeline = await clusterTimeline({
      applicationId: 'wc',
      hosts: [host('b', current)],
      local: { server: 'a:8080', entries: [] },
      peers: client,
      deadline: Date.now() + 2000,
      unreadable: (e) => ((e as unknown as { type: string }).type === 'restore' ? 'a restore of a newer version' : undefined),
    });
    expect(timeline.entries).toEqual([]);
    expect(timeline.success).toEqual([{ server: 'a:8080', processId: undefined, remote: false, total: 0 }]);
    expect(timeline.failure).toEqual([expect.objectContaining({ server: 'b:8080', messages: ['the node sent a timeline entry this node cannot read (a restore of a newer version)'] })]);
  });

  it('names a node that does not answer by the deadline', async () => {
    // Accepts connections and never answers: a frozen node.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const timeline = await clusterTimeline({
        applicationId: 'wc',
        hosts: [host('b', `127.0.0.1:${(silent.address() as net.AddressInfo).port}`)],
        local: { server: 'a:8080', entries: [] },
        peers: client,
        deadline: Date.now() + 300,
      });
      expect(Date.now() - started).toBeLessThan(2000);
      expect(timeline.failure).toEqual([{ server: 'b:8080', processId: 'b', remote: true, messages: ['no answer in time'] }]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
