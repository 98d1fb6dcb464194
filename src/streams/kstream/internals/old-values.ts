/** Shared switch: whether table updates carry old values (turned on by downstream operations that need them). */
export interface OldValues {
  send: boolean;
  /** Source tables: their old values come from their store, so turning them on materializes it (Kafka Streams' KTableSource). */
  readonly materialize?: () => void;
}
