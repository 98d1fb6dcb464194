/** What the leader tells each member beside its partitions (the assignment userData), which every node reads from the group. */
export interface AssignmentInfo {
  version: number;
  /** The standby tasks of the member's process. */
  standbyTasks: string[];
  /** Which of those are warm-ups (KIP-441: tasks caught up before they move), to tell them from standby replicas. */
  warmupTasks?: string[];
  /** The process id of a node that asked the application to shut down (Kafka Streams' SHUTDOWN_REQUESTED error code). */
  shutdownRequestedBy?: string;
}

export function encodeAssignment(info: AssignmentInfo): Buffer {
  return Buffer.from(JSON.stringify(info));
}

export function decodeAssignment(userData: Buffer): AssignmentInfo {
  try {
    const info = JSON.parse(userData.toString('utf8')) as Partial<AssignmentInfo>;
    if (Array.isArray(info.standbyTasks)) {
      return {
        version: Number(info.version),
        standbyTasks: info.standbyTasks.filter((t) => typeof t === 'string'),
        ...(Array.isArray(info.warmupTasks) ? { warmupTasks: info.warmupTasks.filter((t) => typeof t === 'string') } : {}),
        ...(typeof info.shutdownRequestedBy === 'string' ? { shutdownRequestedBy: info.shutdownRequestedBy } : {}),
      };
    }
  } catch {
    // Empty (an assignment before standbys existed) or not Sluice's: no standbys.
  }
  return { version: 0, standbyTasks: [] };
}
