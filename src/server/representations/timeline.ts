/**
 * `GET /api/v1/streams/{id}/timeline` and the `timeline` event: the runtime's timeline entries as JSON. Every entry
 * names its node (process id, application.server), so that a client can merge several nodes' timelines by time.
 */

import Ajv from 'ajv';
import type { ClusterTimeline, TimelineEntryJson } from '../../cluster';
import { describeCause, type MovedTask, type RebalanceCause, type TimelineEntry } from '../../streams/runtime/rebalance-timeline';
import { timelineEntry } from '../schemas/streams';
import { zonedTimestamp } from './timestamp';

function causeJson(cause: RebalanceCause) {
  const { type, ...fields } = cause;
  const json: Record<string, unknown> = { type, description: describeCause(cause) };
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'processId') json['process_id'] = value;
    else if (name === 'endpoint') json['application_server'] = value ?? null;
    else json[name] = value;
  }
  return json;
}

function taskJson(task: MovedTask) {
  return {
    task_id: task.taskId,
    role: task.role,
    ...(task.restore ? { restored_records: task.restore.records, restore_done: task.restore.done } : {}),
  };
}

export function timelineEntryJson(entry: TimelineEntry) {
  const node = { id: entry.id, type: entry.type, process_id: entry.processId, application_server: entry.endpoint ?? null };
  const ended = entry.endedAt === undefined ? null : zonedTimestamp(entry.endedAt);
  if (entry.type === 'rebalance') {
    return {
      ...node,
      started_at: zonedTimestamp(entry.startedAt),
      ended_at: ended,
      duration_ms: entry.durationMs ?? null,
      generation: entry.generation ?? null,
      causes: entry.causes.map(causeJson),
      tasks_gained: entry.gained.map(taskJson),
      tasks_lost: entry.lost.map(taskJson),
    };
  }
  return {
    ...node,
    task_id: entry.taskId,
    store: entry.store,
    topic: entry.topic,
    partition: entry.partition,
    start_offset: entry.startOffset,
    end_offset: entry.endOffset,
    restored: entry.restored,
    remaining: entry.remaining,
    rate: entry.rate,
    estimated_remaining_ms: entry.estimatedRemainingMs ?? null,
    done: entry.done,
    started_at: zonedTimestamp(entry.startedAt),
    ended_at: ended,
    duration_ms: entry.durationMs,
  };
}

/** The instance's timeline; none while it is stopped (a restart begins a new one). */
export function timelineResource(applicationId: string, entries: readonly TimelineEntry[] | undefined) {
  return { application_id: applicationId, entries: (entries ?? []).map(timelineEntryJson) };
}

const checkEntry = new Ajv({ allowUnionTypes: true, strict: false }).compile(timelineEntry);

/** Why a peer's entry cannot be answered (it matches neither entry of the schema), undefined when it can. */
export function unreadableEntry(entry: TimelineEntryJson): string | undefined {
  if (checkEntry(entry)) return undefined;
  const error = checkEntry.errors?.[0];
  return error === undefined ? 'not an entry' : `${error.instancePath || 'the entry'} ${error.message ?? 'is not valid'}`;
}

/** The cluster's timeline (scope=cluster): the merged entries, and which nodes answered and which did not. */
export function clusterTimelineResource(applicationId: string, timeline: ClusterTimeline) {
  return {
    application_id: applicationId,
    entries: timeline.entries,
    success: timeline.success.map(({ server, processId, remote, total }) => ({ server, process_id: processId ?? null, remote, total })),
    failure: timeline.failure.map(({ server, processId, remote, messages }) => ({ server, process_id: processId, remote, errors: messages.map((message) => ({ message })) })),
  };
}
