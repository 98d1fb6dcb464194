/**
 * Sluice's public API for topology authors: the DSL and the Processor API, serdes, stores, the test driver,
 * the runtime that runs a topology on Kafka, and the definition through which `sluice start` runs one.
 */
export type { TopologyDefinition } from './host/topology-definition';
export type { ConfigValue } from './streams/runtime/streams-config';
export { StreamsBuilder } from './streams/kstream/streams-builder';
export { Branched, KStream, BranchedKStream } from './streams/kstream/kstream';
export type { ProcessOptions } from './streams/kstream/kstream';
export { KTable } from './streams/kstream/ktable';
export { GlobalKTable } from './streams/kstream/global-ktable';
export { KGroupedStream } from './streams/kstream/kgrouped-stream';
export { KGroupedTable } from './streams/kstream/kgrouped-table';
export { TimeWindowedKStream } from './streams/kstream/time-windowed-kstream';
export { SessionWindowedKStream } from './streams/kstream/session-windowed-kstream';
export { CogroupedKStream, SessionWindowedCogroupedKStream, TimeWindowedCogroupedKStream } from './streams/kstream/cogrouped-kstream';
export { JoinWindows, SessionWindows, SlidingWindows, TimeWindows } from './streams/kstream/windows';
export { BufferConfig, Suppressed } from './streams/kstream/suppressed';
export type { ForeignKeyJoined } from './streams/kstream/options';
export { Consumed, Grouped, Joined, Materialized, Named, Produced, Repartitioned, StreamJoined } from './streams/kstream/options';
export { Topology } from './streams/topology/topology';
export type { TopologyDescription } from './streams/topology/description';
export type {
  Cancellable,
  FixedKeyProcessor,
  FixedKeyProcessorContext,
  FixedKeyProcessorSupplier,
  ProcessingContext,
  Processor,
  ProcessorContext,
  ProcessorSupplier,
  PunctuationType,
  Punctuator,
  StreamPartitioner,
  TimestampExtractor,
  TopicNameExtractor,
} from './streams/processor/processor';
export type { Headers, RecordMetadata, StreamRecord } from './streams/processor/record';
export { FixedKeyRecord } from './streams/processor/record';
export type { Serde } from './streams/serdes/serde';
export { Serdes } from './streams/serdes/serdes';
export { SchemaRegistrySerdes } from './streams/serdes/schema-registry';
export type { AvroSerdeOptions, JsonSchemaSerdeOptions, ProtobufSerdeOptions } from './streams/serdes/schema-registry';
export { sessionWindowedSerde, timeWindowedSerde } from './streams/serdes/windowed';
export { Stores } from './streams/state/stores';
export type {
  KeyValueBytesStoreSupplier,
  SessionBytesStoreSupplier,
  StoreBuilder,
  StoreSerdeDefaults,
  VersionedBytesStoreSupplier,
  WindowBytesStoreSupplier,
} from './streams/state/stores';
export { PUT_RETURN_CODE_NOT_PUT, PUT_RETURN_CODE_VALID_TO_UNDEFINED } from './streams/state/versioned-key-value-store';
export type {
  KeyValue,
  KeyValueStore,
  PositionedEntry,
  ReadOnlyKeyValueStore,
  ReadOnlySessionStore,
  ReadOnlyWindowStore,
  SessionScan,
  SessionStore,
  ValueAndTimestamp,
  VersionedKeyValueStore,
  VersionedRecord,
  ReadOnlyVersionedKeyValueStore,
  Window,
  WindowScan,
  WindowStore,
  Windowed,
} from './streams/state/store';
export { TopologyTestDriver } from './streams/test-driver/topology-test-driver';
export { TestInputTopic, TestOutputTopic } from './streams/test-driver/test-topics';
export type { InputTopicOptions, TestRecord } from './streams/test-driver/test-topics';
export type { ThreadEvent, TopologyEvent } from './streams/runtime/instance-view';
export { StreamsInstance } from './streams/runtime/streams-instance';
export type { StreamsInstanceOptions } from './streams/runtime/instance-parts';
export type { TopologySource } from './streams/runtime/worker/topology-source';
export { DLQ_HEADERS } from './streams/runtime/exception-handlers';
export type {
  DeserializationExceptionHandler,
  ErrorHandlerContext,
  ExceptionHandlers,
  HandlerResponse,
  ProcessingExceptionHandler,
  ProductionExceptionHandler,
  StreamsUncaughtExceptionHandler,
  StreamThreadExceptionResponse,
} from './streams/runtime/exception-handlers';
export type { ProducedRecord } from './streams/runtime/record-collector';
export type { OAuthBearerToken, OAuthBearerTokenProvider } from './streams/kafka';
export type { StreamsState } from './streams/runtime/streams-state';
export { SerdeNotReady, SluiceError } from './errors';
export type { SerdeNotReadyOptions } from './errors';
