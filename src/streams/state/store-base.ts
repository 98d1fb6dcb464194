import { IllegalState, InvalidStateStore } from '../../errors';
import type { ChangelogRecord, StoreContext, StoreStats, StoreType } from './store';
import { OpenIterators } from './store-iterators';
import type { StoreStorage } from './store-storage';

/** What every typed store shares: lifecycle over its storage, changelogging, open iterators and counters. */
export abstract class StoreBase {
  protected readonly iterators = new OpenIterators(() => this.onIteratorsIdle());
  protected puts = 0;
  protected gets = 0;
  private storeContext: StoreContext | undefined;
  private logging = false;

  constructor(
    readonly name: string,
    readonly type: StoreType,
    protected readonly storage: StoreStorage,
  ) {}

  get persistent(): boolean {
    return this.storage.persistent;
  }

  init(context: StoreContext): void {
    if (this.storeContext !== undefined) throw new IllegalState(`Store ${this.name} is already initialised`);
    this.storage.open(context, this.name);
    this.storeContext = context;
    this.logging = context.loggingEnabled;
    this.puts = 0;
    this.gets = 0;
    this.opened();
  }

  isOpen(): boolean {
    return this.storeContext !== undefined;
  }

  async flush(): Promise<void> {
    this.checkOpen();
    this.beforeFlush();
    await this.storage.flush();
  }

  async close(): Promise<void> {
    if (this.storeContext === undefined) return;
    this.iterators.closeAll();
    this.beforeFlush();
    // Closed for callers at once; the storage finishes its pending writes before it closes.
    this.storeContext = undefined;
    await this.storage.close();
  }

  stats(): StoreStats {
    this.checkOpen();
    return {
      entries: this.entryCount(),
      sizeBytes: this.storage.sizeBytes(),
      puts: this.puts,
      gets: this.gets,
      openIterators: this.iterators.count,
    };
  }

  /** Throws Kafka Streams' InvalidStateStoreException equivalent when the store is not open. */
  protected checkOpen(): void {
    if (this.storeContext === undefined) throw new InvalidStateStore(`Store ${this.name} is not open`);
  }

  /** Sends a write to the changelog when logging is on (restoration writes are never logged). */
  protected log(key: Buffer, value: Buffer | null, timestamp: number): void {
    if (!this.logging || this.storeContext === undefined) return;
    const record: ChangelogRecord = { key, value, timestamp };
    this.storeContext.logChange(this.name, record);
  }

  protected get loggingEnabled(): boolean {
    return this.logging;
  }

  /** Timestamp of the record being processed, for changelog records of plain values. */
  protected readonly recordTimestamp = (): number => {
    const context = this.storeContext;
    if (context === undefined) return -1;
    return context.recordTimestamp?.() ?? context.streamTime();
  };

  /** Called by init() once the storage is open. */
  protected abstract opened(): void;
  protected abstract entryCount(): number;

  /** Last writes before the storage flushes (e.g. a segmented store's observed stream time). */
  protected beforeFlush(): void {}

  protected onIteratorsIdle(): void {}
}
