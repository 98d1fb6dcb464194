/** The cluster layer: the gRPC peer service between Sluice nodes (proto/sluice.proto), its server and client. */
export { clusterTimeline, type ClusterTimeline, type TimelineEntryJson, type TimelinePeers } from './cluster-timeline';
export { PeerClient, type PeerClientOptions } from './peer-client';
export { isAuthenticated, type PeerSecurity, type PeerTls } from './peer-security';
export { startPeerServer, type NodeInfo, type PeerServer, type PeerServerOptions } from './peer-server';
