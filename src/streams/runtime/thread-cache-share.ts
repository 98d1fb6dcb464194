/**
 * Kafka Streams' getCacheSizePerThread: each thread's share of `statestore.cache.max.bytes` (its ThreadCache's
 * budget), among `streamThreads` stream threads and the global thread when there is one; with no stream thread
 * left, all of it.
 */
export function cacheBytesPerThread(totalBytes: number, streamThreads: number, globalThread: boolean): number {
  return streamThreads === 0 ? totalBytes : Math.floor(totalBytes / (streamThreads + (globalThread ? 1 : 0)));
}
