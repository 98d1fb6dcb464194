/** A task: one sub-topology on one partition. Written `<subtopology>_<partition>` as in Kafka Streams. */
export interface TaskId {
  readonly subtopology: number;
  readonly partition: number;
}

export function taskIdToString(id: TaskId): string {
  return `${id.subtopology}_${id.partition}`;
}

export function parseTaskId(text: string): TaskId | undefined {
  const match = /^(\d+)_(\d+)$/.exec(text);
  if (!match) return undefined;
  return { subtopology: Number(match[1]), partition: Number(match[2]) };
}
