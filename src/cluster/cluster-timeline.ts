/**
 * The cluster's timeline of an application: this node's entries and those of every other node of the application
 * (the host map), asked over the peer service's Timeline call, merged by start time. A node that does not answer
 * (down, too slow, of the previous version, or sending what is not a timeline) is a failure part, as in a query's
 * answer: the others' entries are answered all the same.
 */

import { remoteTarget } from '../query/plan';
import { failedAnswer, type PartFailure } from '../query/parts';
import type { StreamsMetadata } from '../streams/runtime/streams-metadata';

/** A timeline entry in the HTTP API's JSON shape, as far as the merge reads it. */
export interface TimelineEntryJson {
  readonly process_id: string;
  readonly id: number;
  /** The zoned timestamp (`2026-11-22T01:30:00.123Z[UTC]`). */
  readonly started_at: string;
}

/** A node's timeline, or why it has none. */
export type PeerTimeline = { ok: true; entries: TimelineEntryJson[] } | PartFailure;

/** How this node asks another for its timeline (the cluster layer's PeerClient). Never rejects. */
export interface TimelinePeers {
  timeline(grpcEndpoint: string, applicationId: string, deadline: number): Promise<PeerTimeline>;
}

/** A node that answered: its name (application.server), and how many entries it gave. */
export interface TimelineSuccess {
  server: string;
  processId: string | undefined;
  remote: boolean;
  total: number;
}

/** A node that did not, and why. */
export interface TimelineFailure {
  server: string;
  processId: string;
  remote: true;
  messages: string[];
}

export interface ClusterTimeline {
  /** Every answering node's entries, oldest first. */
  entries: TimelineEntryJson[];
  success: TimelineSuccess[];
  failure: TimelineFailure[];
}

export interface ClusterTimelineRequest {
  applicationId: string;
  /** The host map of the local instance: every process of the application; none while it is stopped. */
  hosts: readonly StreamsMetadata[];
  /** This node's own entries, and its name when the host map does not give it (before the first assignment). */
  local: { server: string; entries: readonly TimelineEntryJson[] };
  peers: TimelinePeers;
  /** Epoch ms by which every peer must have answered. */
  deadline: number;
  /**
   * Why a peer's entry cannot go into the answer (it matches no entry of the API's schema: a broken peer, or a newer
   * version's entry), undefined when it can. A peer that sent such an entry is a failure part.
   */
  unreadable?: (entry: TimelineEntryJson) => string | undefined;
}

/** Epoch ms of a zoned timestamp; NaN when it is not one. */
export function startedAtMs(entry: TimelineEntryJson): number {
  return Date.parse(entry.started_at.replace(/\[[^\]]*\]$/, ''));
}

/** Oldest first; entries that start together keep their node's order (by process, then number). */
export function mergeTimelines(timelines: readonly (readonly TimelineEntryJson[])[]): TimelineEntryJson[] {
  return timelines
    .flat()
    .map((entry) => ({ entry, at: startedAtMs(entry) }))
    .sort((a, b) => a.at - b.at || a.entry.process_id.localeCompare(b.entry.process_id) || a.entry.id - b.entry.id)
    .map(({ entry }) => entry);
}

async function askPeer(host: StreamsMetadata, request: ClusterTimelineRequest): Promise<PeerTimeline> {
  if (host.grpcEndpoint === undefined) return failedAnswer('the node published no gRPC endpoint (grpc.endpoint), so it cannot be asked', 'NOT_AVAILABLE');
  const answer = await request.peers.timeline(host.grpcEndpoint, request.applicationId, request.deadline);
  if (!answer.ok || request.unreadable === undefined) return answer;
  for (const entry of answer.entries) {
    const reason = request.unreadable(entry);
    if (reason !== undefined) return failedAnswer(`the node sent a timeline entry this node cannot read (${reason})`);
  }
  return answer;
}

/** Asks every other node of the application at once, and merges what they answer by the deadline. */
export async function clusterTimeline(request: ClusterTimelineRequest): Promise<ClusterTimeline> {
  const localHost = request.hosts.find((host) => host.isLocal);
  const remotes = request.hosts.filter((host) => !host.isLocal);
  const answers = await Promise.all(remotes.map((host) => askPeer(host, request)));
  const success: TimelineSuccess[] = [
    { server: localHost ? remoteTarget(localHost).server : request.local.server, processId: localHost?.processId, remote: false, total: request.local.entries.length },
  ];
  const failure: TimelineFailure[] = [];
  const timelines = [request.local.entries];
  remotes.forEach((host, index) => {
    const answer = answers[index]!;
    const { server } = remoteTarget(host);
    if (answer.ok) {
      success.push({ server, processId: host.processId, remote: true, total: answer.entries.length });
      timelines.push(answer.entries);
    } else {
      failure.push({ server, processId: host.processId, remote: true, messages: answer.messages });
    }
  });
  return { entries: mergeTimelines(timelines), success, failure };
}
