/** The streams-instance resources (`GET /api/v1/streams/{id}` and below) built from a local instance. */

import type { ConsumerOffsets, StorePartitionStatus, TaskMetadata, ThreadMetadata } from '../../streams/runtime/instance-view';
import { parseEndpoint } from '../../streams/runtime/streams-config';
import type { InstanceState, LocalInstance } from '../context';
import { visibleConfig } from './config';
import { zonedTimestamp } from './timestamp';

export interface Endpoint {
  address: string;
  port: number;
}

export interface InstanceResource {
  id: string;
  name: string;
  version: string;
  description: string | null;
  since: string;
  state: { state: InstanceState; since: string };
  config: Record<string, string | number | boolean>;
  endpoint?: Endpoint;
  exception?: string;
}

/** `application.server` as an endpoint; undefined when unset or unreadable. */
export function endpointOf(applicationServer: unknown): Endpoint | undefined {
  if (typeof applicationServer !== 'string') return undefined;
  try {
    const parsed = parseEndpoint('application.server', applicationServer);
    return parsed && { address: parsed.host, port: parsed.port };
  } catch {
    return undefined;
  }
}

export function instanceResource(instance: LocalInstance): InstanceResource {
  const resource: InstanceResource = {
    id: instance.id,
    name: instance.topology.name,
    version: instance.topology.version,
    description: instance.description ?? (instance.topology.description || null),
    since: zonedTimestamp(instance.createdAt),
    state: { state: instance.state, since: zonedTimestamp(instance.stateSince) },
    config: visibleConfig(instance.config),
  };
  const endpoint = endpointOf(instance.config['application.server']);
  if (endpoint) resource.endpoint = endpoint;
  if (instance.lastError) resource.exception = instance.lastError.message;
  return resource;
}

function taskResource(task: TaskMetadata) {
  return {
    task_id: task.taskId,
    topic_partitions: task.topicPartitions.map(({ topic, partition }) => ({ topic, partition })),
    ...(task.lag !== undefined ? { lag: task.lag } : {}),
  };
}

function threadResource(thread: ThreadMetadata) {
  return {
    name: thread.name,
    state: thread.state,
    active_tasks: thread.activeTasks.map(taskResource),
    standby_tasks: thread.standbyTasks.map(taskResource),
    clients: {
      consumer_client_id: thread.clients.consumerClientId,
      producer_client_ids: thread.clients.producerClientIds,
      restore_consumer_client_id: thread.clients.restoreConsumerClientId,
      admin_client_id: thread.clients.adminClientId,
    },
  };
}

/** Every current thread in whatever state it is (Azkarra showed them only while RUNNING). */
export function statusResource(instance: LocalInstance) {
  return { id: instance.id, state: instance.state, threads: (instance.view?.threads() ?? []).map(threadResource) };
}

export function offsetsResource(id: string, offsets: ConsumerOffsets | undefined) {
  if (offsets === undefined) return { group: id, consumers: [] };
  return {
    group: offsets.group,
    consumers: offsets.consumers.map((consumer) => ({
      client_id: consumer.clientId,
      stream_thread: consumer.streamThread,
      positions: consumer.positions.map((p) => ({
        topic: p.topic,
        partition: p.partition,
        consumed_offset: p.consumedOffset,
        consumed_timestamp: p.consumedTimestamp,
        committed_offset: p.committedOffset,
        committed_timestamp: p.committedTimestamp,
        log_end_offset: p.logEndOffset,
        log_start_offset: p.logStartOffset,
        lag: p.lag,
      })),
    })),
  };
}

export function storesResource(stores: readonly StorePartitionStatus[]) {
  return stores.map((s) => ({
    store: s.store,
    partition: s.partition,
    changelog: s.changelog ?? null,
    current_offset: s.currentOffset,
    log_end_offset: s.logEndOffset,
    lag: s.lag,
    ...(s.lastRestoration
      ? {
          last_restoration: {
            topic: s.lastRestoration.topic,
            partition: s.lastRestoration.partition,
            starting_offset: s.lastRestoration.startingOffset,
            ending_offset: s.lastRestoration.endingOffset,
            total_restored: s.lastRestoration.totalRestored,
            duration_ms: s.lastRestoration.durationMs,
          },
        }
      : {}),
    ...(s.restoring ? { restoring: { starting_offset: s.restoring.startingOffset, ending_offset: s.restoring.endingOffset ?? null } } : {}),
    ...(s.sizeBytes !== undefined ? { size_bytes: s.sizeBytes } : {}),
  }));
}

export function actionResource(instance: LocalInstance) {
  return { id: instance.id, state: instance.state };
}
