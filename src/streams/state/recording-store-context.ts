import type { ChangelogRecord, StoreContext } from './store';
import { ThreadCache } from './thread-cache';

/**
 * A StoreContext for using stores outside a task (unit tests, tools): it keeps the changelog records the store
 * sends, and its stream time and record timestamp are set by hand. The stores it opens share one thread cache of
 * `cacheMaxBytes`, if given.
 */
export class RecordingStoreContext implements StoreContext {
  readonly applicationId: string;
  readonly taskId: string;
  readonly loggingEnabled: boolean;
  readonly configureStore?: (storeName: string, options: Record<string, unknown>) => void;
  readonly cache?: ThreadCache;
  readonly minFreeDiskBytes?: number;
  readonly changelog: ChangelogRecord[] = [];
  currentStreamTime = -1;
  currentRecordTimestamp = 0;

  constructor(
    readonly taskDir: string,
    options: {
      applicationId?: string;
      taskId?: string;
      loggingEnabled?: boolean;
      configureStore?: (storeName: string, options: Record<string, unknown>) => void;
      cacheMaxBytes?: number;
      minFreeDiskBytes?: number;
    } = {},
  ) {
    this.applicationId = options.applicationId ?? 'app';
    this.taskId = options.taskId ?? '0_0';
    this.loggingEnabled = options.loggingEnabled ?? true;
    if (options.configureStore !== undefined) this.configureStore = options.configureStore;
    if (options.cacheMaxBytes !== undefined) this.cache = new ThreadCache(options.cacheMaxBytes);
    if (options.minFreeDiskBytes !== undefined) this.minFreeDiskBytes = options.minFreeDiskBytes;
  }

  logChange(_storeName: string, record: ChangelogRecord): void {
    this.changelog.push(record);
  }

  streamTime(): number {
    return this.currentStreamTime;
  }

  readonly recordTimestamp = (): number => this.currentRecordTimestamp;
}
