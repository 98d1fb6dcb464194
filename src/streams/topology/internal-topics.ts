import type { Topology } from './topology';

/** `<application.id>-<store>-changelog`, Kafka Streams' changelog name. */
export function changelogTopicName(applicationId: string, store: string): string {
  return `${applicationId}-${store}-changelog`;
}

/** The real name of a topic as written in a topology: internal (repartition) topics get the application id. */
export function resolveTopicName(topology: Topology, applicationId: string, topic: string): string {
  return topology.isInternalTopic(topic) ? `${applicationId}-${topic}` : topic;
}

/** The changelog of a store, or undefined when the store is not logged. */
export function storeChangelogTopic(topology: Topology, applicationId: string, store: string): string | undefined {
  const builder = topology.store(store);
  return builder && builder.loggingEnabled ? changelogTopicName(applicationId, store) : undefined;
}
