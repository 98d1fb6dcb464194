/** The application record (`GET /api/v1/applications/{id}`): every process of the application, from the host map. */

import type { TopicPartition } from '../../streams/kafka';
import type { StreamsMetadata } from '../../streams/runtime/streams-metadata';
import type { LocalInstance } from '../context';
import { endpointOf, type Endpoint } from './instance';

export interface ApplicationInstanceResource {
  id: string | null;
  endpoint?: Endpoint;
  isLocal: boolean;
  metadata: {
    stores: string[];
    assignments: { name: string; partitions: number[] }[];
    standbyStateStores: string[];
    standbyAssignments: { name: string; partitions: number[] }[];
  };
}

/** Partitions grouped by topic, topics and partitions in order. */
function assignments(partitions: readonly TopicPartition[]): { name: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  return [...byTopic.keys()].sort().map((name) => ({ name, partitions: byTopic.get(name)!.sort((a, b) => a - b) }));
}

function hostResource(instance: LocalInstance, host: StreamsMetadata): ApplicationInstanceResource {
  const resource: ApplicationInstanceResource = {
    id: host.isLocal ? instance.id : null,
    isLocal: host.isLocal,
    metadata: {
      stores: [...host.stateStoreNames],
      assignments: assignments(host.topicPartitions),
      standbyStateStores: [...host.standbyStateStoreNames],
      standbyAssignments: assignments(host.standbyTopicPartitions),
    },
  };
  if (host.host !== undefined && host.port !== undefined) resource.endpoint = { address: host.host, port: host.port };
  return resource;
}

export function applicationResource(instance: LocalInstance) {
  return { id: instance.id, instances: (instance.view?.allMetadata() ?? []).map((host) => hostResource(instance, host)) };
}

/**
 * This process's entry of the record; before the first rebalance (or once stopped) the host map has none, and the
 * entry shows the local endpoint with nothing assigned.
 */
export function localMetadataResource(instance: LocalInstance): ApplicationInstanceResource {
  const local = instance.view?.allMetadata().find((host) => host.isLocal);
  if (local) return hostResource(instance, local);
  const resource: ApplicationInstanceResource = {
    id: instance.id,
    isLocal: true,
    metadata: { stores: [], assignments: [], standbyStateStores: [], standbyAssignments: [] },
  };
  const endpoint = endpointOf(instance.config['application.server']);
  if (endpoint) resource.endpoint = endpoint;
  return resource;
}
