import type { BytesTable } from './bytes-table';
import type { StoreContext } from './store';

/**
 * Where a store keeps its tables: an LMDB environment below the task directory, or memory. A store owns one
 * storage; key-value stores use one table, window and session stores one table per segment.
 */
export interface StoreStorage {
  readonly persistent: boolean;
  open(context: StoreContext, storeName: string): void;
  /** A small table for the store's own bookkeeping (e.g. the observed stream time of a segmented store). */
  readonly metadata: BytesTable;
  /** The table called `name`, created when missing. */
  table(name: string): BytesTable;
  /** Deletes the table and its entries. */
  dropTable(name: string): void;
  /** Names of the tables that exist (after a reopen: those left by the previous run); drops show once flushed. */
  tableNames(): string[];
  /**
   * Runs `write`, whose table writes are restored changelog entries (`BytesTable.restore`), as one unit: LMDB
   * commits them in one synchronous transaction, so that nothing of them stays on the heap afterwards. The store
   * must have no unflushed writes (LMDB throws IllegalState): they would commit after the restored ones.
   */
  restoreBatch(write: () => void): void;
  /** Resolves once every write so far is durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Bytes on disk; undefined in memory. */
  sizeBytes(): number | undefined;
}
