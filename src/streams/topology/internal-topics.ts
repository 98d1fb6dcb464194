/** `<application.id>-<store>-changelog`, Kafka Streams' changelog name. */
export function changelogTopicName(applicationId: string, store: string): string {
  return `${applicationId}-${store}-changelog`;
}
