import { TopologyException } from '../../errors';

/** How many keys a suppression buffers, and what happens when it has more (Kafka Streams' `BufferConfig`). */
export interface BufferConfig {
  readonly maxRecords: number;
  /** `emit-early`: the oldest keys are emitted before their time; `shut-down`: the task fails. */
  readonly whenFull: 'emit-early' | 'shut-down';
}

export const BufferConfig = {
  /** No limit: every key waits for its time (a strict buffer, as `untilWindowCloses` needs). */
  unbounded: (): BufferConfig => ({ maxRecords: Number.POSITIVE_INFINITY, whenFull: 'shut-down' }),
  /** At most `maxRecords` keys; beyond that the oldest are emitted early, or with `shut-down` the task fails. */
  maxRecords(maxRecords: number, whenFull: BufferConfig['whenFull'] = 'emit-early'): BufferConfig {
    if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) {
      throw new TopologyException(`a suppression buffer needs a positive record limit, got ${maxRecords}`);
    }
    return { maxRecords, whenFull };
  },
} as const;

/** What `KTable.suppress` holds back, and until when (Kafka Streams' `Suppressed`). */
export interface Suppressed {
  /** `window-close`: each windowed key's final result only, once stream time passes its window end + grace. */
  readonly until: 'window-close' | 'time-limit';
  /** `time-limit`: how long after a key was first buffered its latest value is held back. */
  readonly timeLimitMs: number;
  readonly buffer: BufferConfig;
  /** Names the processor (and the buffer store, `<name>-store`). */
  readonly name?: string;
}

export const Suppressed = {
  /** Emit-final: one result per window, when the window closes. */
  untilWindowCloses(buffer: BufferConfig = BufferConfig.unbounded(), name?: string): Suppressed {
    if (buffer.whenFull === 'emit-early') {
      throw new TopologyException('untilWindowCloses needs a strict buffer (unbounded, or shut-down when full): emitting early is not final');
    }
    return { until: 'window-close', timeLimitMs: 0, buffer, ...(name === undefined ? {} : { name }) };
  },
  /**
   * Rate limiting: a key's latest value once `timeLimitMs` of stream time has passed since the key was first
   * buffered (later updates replace the value but do not push the emit back, as in Kafka Streams).
   */
  untilTimeLimit(timeLimitMs: number, buffer: BufferConfig = BufferConfig.unbounded(), name?: string): Suppressed {
    if (!Number.isSafeInteger(timeLimitMs) || timeLimitMs < 0) {
      throw new TopologyException(`the suppression time limit must be a non-negative integer of ms, got ${timeLimitMs}`);
    }
    return { until: 'time-limit', timeLimitMs, buffer, ...(name === undefined ? {} : { name }) };
  },
} as const;
