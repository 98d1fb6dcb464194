import { Segments } from './segments';
import { StoreBase } from './store-base';
import type { StoreType } from './store';
import type { StoreStorage } from './store-storage';

/**
 * What window and session stores share: their entries live in time segments (Kafka Streams' segmented
 * stores); expired segments are dropped at flush or once no iterator reads them any more.
 */
export abstract class SegmentedStoreBase extends StoreBase {
  private segmentSet: Segments | undefined;

  constructor(
    name: string,
    type: StoreType,
    storage: StoreStorage,
    readonly retentionPeriod: number,
    private readonly segmentInterval: number,
  ) {
    super(name, type, storage);
  }

  protected opened(): void {
    this.segmentSet = new Segments(this.storage, this.retentionPeriod, this.segmentInterval, () => this.iterators.count > 0);
    this.segmentSet.openExisting();
  }

  protected entryCount(): number {
    return this.openSegments().approximateNumEntries();
  }

  protected override beforeFlush(): void {
    this.segmentSet?.saveObservedStreamTime();
    this.segmentSet?.dropRetired();
  }

  protected override onIteratorsIdle(): void {
    this.segmentSet?.dropRetired();
  }

  /** The segments of an open store; throws when the store is closed. */
  protected openSegments(): Segments {
    this.checkOpen();
    return this.segmentSet as Segments;
  }
}
