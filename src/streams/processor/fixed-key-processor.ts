import type { FixedKeyProcessorContext, FixedKeyProcessorSupplier, Processor, ProcessorContext, ProcessorSupplier } from './processor';
import { FixedKeyRecord } from './record';

/**
 * Runs a fixed-key processor as a node of the graph: it receives each record as a FixedKeyRecord, and what it
 * forwards goes on as a plain record (Kafka Streams' `ProcessorAdapter` for fixed-key processors).
 */
export function fixedKeyProcessorNode<KIn, VIn, VOut>(supplier: FixedKeyProcessorSupplier<KIn, VIn, VOut>): ProcessorSupplier<KIn, VIn, KIn, VOut> {
  return () => {
    const processor = supplier();
    const node: Processor<KIn, VIn, KIn, VOut> = {
      init: (context) => processor.init?.(fixedKeyContext(context)),
      process: (record) => processor.process(FixedKeyRecord.of(record)),
    };
    if (processor.close) node.close = () => processor.close!();
    return node;
  };
}

function fixedKeyContext<K, VOut>(context: ProcessorContext<K, VOut>): FixedKeyProcessorContext<K, VOut> {
  return {
    applicationId: context.applicationId,
    taskId: context.taskId,
    appConfig: context.appConfig,
    forward: (record, childName) =>
      context.forward({ key: record.key, value: record.value, timestamp: record.timestamp, headers: record.headers }, childName),
    getStateStore: (name) => context.getStateStore(name),
    schedule: (intervalMs, type, punctuator) => context.schedule(intervalMs, type, punctuator),
    recordMetadata: () => context.recordMetadata(),
    currentStreamTimeMs: () => context.currentStreamTimeMs(),
    currentSystemTimeMs: () => context.currentSystemTimeMs(),
    commit: () => context.commit(),
    publishEvent: (eventType, record) => context.publishEvent(eventType, record),
  };
}
