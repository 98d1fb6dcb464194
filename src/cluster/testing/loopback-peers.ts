/** Query nodes in one test process, each with its own peer server on loopback gRPC, that a test can freeze. */
import * as net from 'node:net';
import type { PartStream } from '../../query/parts';
import type { PeerAnswer, PeerQueryHandler } from '../../query/peers';
import type { QueryService } from '../../query/query-service';
import { startPeerServer, type PeerServer } from '../peer-server';

/** A node as the tests drive it: its query service, once made, and whether it is frozen. */
export interface LoopbackNode {
  service?: QueryService;
  /** While frozen, the node accepts peer calls and never answers them. */
  frozen: boolean;
}

/** A part that never answers. */
async function* frozenPart(): PartStream {
  return await new Promise<never>(() => undefined);
}

/** Starts the node's peer server on a free loopback port; its calls reach the node's query service unless frozen. */
export function startLoopbackPeer(node: LoopbackNode): Promise<PeerServer> {
  const handler: PeerQueryHandler = {
    answerPeer: (request, deadline) => (node.frozen ? new Promise<PeerAnswer>(() => undefined) : node.service!.answerPeer(request, deadline)),
    streamPeer: (query, deadline) => (node.frozen ? frozenPart() : node.service!.streamPeer(query, deadline)),
    describeStore: (applicationId, store) => node.service!.describeStore(applicationId, store),
  };
  return startPeerServer({ host: '127.0.0.1', port: 0, handler });
}

/** A port nothing listens on: bound by the OS, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
