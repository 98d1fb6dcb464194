import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Database, open, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { IllegalState, StreamsException } from '../../errors';
import type { BytesTable } from './bytes-table';
import { DiskSpaceGuard } from './disk-space-guard';
import { checkLmdbHeader } from './lmdb-header';
import { LmdbTable } from './lmdb-table';
import type { StoreContext } from './store';
import type { StoreStorage } from './store-storage';

/** Database of the store's bookkeeping, and of the values of empty keys (which LMDB cannot store as keys). */
const METADATA_DB = '__metadata__';
/** Segment databases (e.g. `segment.1700000000000`) plus the key-value database and the metadata. */
const MAX_DBS = 16;
/**
 * The map an environment starts with. lmdb-js would start at 128 KB and map the file again each time it outgrows the
 * map, keeping every earlier map: the same pages then count in RSS once per map, about twice the store's size
 * (measured by bench:memory, issue 37). Address space only: LMDB neither grows the file to it nor pages it in, and
 * a store beyond it still grows.
 */
const INITIAL_MAP_BYTES = 1024 * 1024 * 1024;

/**
 * One LMDB environment per store, at `<taskDir>/lmdb/<storeName>/` (Kafka Streams: `rocksdb/<storeName>/`), each
 * table a named database in it. Per store rather than per task because: wiping or restoring one store is deleting
 * one directory; LMDB allows one write transaction per environment at a time, so separate environments let the
 * stores of a task commit in parallel; and `embeddedstore.config.setter` can tune each store (map size, sync mode),
 * which LMDB only allows per environment.
 */
/** Where a store's environment lives in its task's directory. */
export function lmdbStoreDir(taskDir: string, storeName: string): string {
  return join(taskDir, 'lmdb', storeName);
}

/**
 * The bytes a store's environment takes on disk (allocated blocks: the map is address space, not file size), or
 * undefined when it has none (an in-memory store, or not opened yet).
 */
export function lmdbStoreBytes(taskDir: string, storeName: string): number | undefined {
  const dir = lmdbStoreDir(taskDir, storeName);
  try {
    return readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).blocks * 512, 0);
  } catch {
    return undefined;
  }
}

export class LmdbStorage implements StoreStorage {
  readonly persistent = true;
  private env: RootDatabase<Buffer, Buffer> | undefined;
  private meta: LmdbTable | undefined;
  private readonly tables = new Map<string, LmdbTable>();
  private storeName = '';
  /** A write failed; `failure` is its cause once lmdb-js has given it. */
  private failing = false;
  private failure: unknown;
  private failureSignal: Promise<void> = Promise.resolve();
  private signalFailure: () => void = () => undefined;
  private diskSpace: DiskSpaceGuard | undefined;

  open(context: StoreContext, storeName: string): void {
    this.storeName = storeName;
    this.resetFailure();
    const path = lmdbStoreDir(context.taskDir, storeName);
    mkdirSync(path, { recursive: true });
    this.diskSpace = new DiskSpaceGuard(storeName, path, context.minFreeDiskBytes ?? 0);
    // Not lmdb-js's event-turn batching: the promise of the batch it opens at the end of each event-loop turn reaches
    // nobody, so when that transaction fails (a full disk) its rejection is unhandled and ends the process. Batched by
    // commit delay instead, writes cost the same (measured: 1.38 s against 1.41 s for a million puts).
    const layout = { path, keyEncoding: 'binary', encoding: 'binary', eventTurnBatching: false } as const;
    const options: Record<string, unknown> = { ...layout, maxDbs: MAX_DBS, mapSize: INITIAL_MAP_BYTES };
    context.configureStore?.(storeName, options);
    // The byte layout of the store depends on the first three, and failures surface only without event-turn batching.
    Object.assign(options, layout);
    checkLmdbHeader(path);
    this.env = open<Buffer, Buffer>(options as RootDatabaseOptionsWithPath);
    this.meta = new LmdbTable(`${storeName}/${METADATA_DB}`, this.openDb(METADATA_DB), undefined, this.recordFailure, this.refusal);
    this.probe();
  }

  /**
   * Reads the first and last key of every database: the pages from each root to both ends. A damaged page there
   * kills the process while the task's stores are opening, which the runtime notices at the next start (it then
   * restores the task from its changelogs) instead of dying on it again at the first read.
   */
  private probe(): void {
    const env = this.environment();
    for (const key of env.getKeys()) {
      const db = this.openDb(Buffer.from(key as Uint8Array).toString('utf8').replace(/\0$/, ''));
      for (const reverse of [false, true]) Array.from(db.getRange({ limit: 1, reverse }));
    }
  }

  get metadata(): BytesTable {
    if (this.meta === undefined) throw new IllegalState(`LMDB store ${this.storeName} used before open()`);
    return this.meta;
  }

  table(name: string): BytesTable {
    let table = this.tables.get(name);
    if (table === undefined) {
      const emptyKeySlot = { table: this.metadata, key: Buffer.from(`empty-key:${name}`, 'utf8') };
      table = new LmdbTable(`${this.storeName}/${name}`, this.openDb(name), emptyKeySlot, this.recordFailure, this.refusal);
      this.tables.set(name, table);
    }
    return table;
  }

  dropTable(name: string): void {
    const table = this.tables.get(name);
    if (table === undefined) return;
    this.tables.delete(name);
    table.drop();
  }

  tableNames(): string[] {
    const names: string[] = [];
    // The root database of an environment holds one key per named database: its name, NUL-terminated.
    for (const key of this.environment().getKeys()) {
      const name = Buffer.from(key as Uint8Array).toString('utf8').replace(/\0$/, '');
      if (name !== METADATA_DB) names.push(name);
    }
    return names;
  }

  restoreBatch(write: () => void): void {
    // A synchronous transaction commits before the asynchronous writes queued earlier: it would be undone by them.
    if ([this.meta, ...this.tables.values()].some((table) => table?.hasUnflushedWrites)) {
      throw new IllegalState(`LMDB store ${this.storeName}: restoring while writes are not flushed`);
    }
    this.environment().transactionSync(write);
  }

  async flush(): Promise<void> {
    const env = this.environment();
    // After a failed commit lmdb-js settles neither `committed` nor `flushed`: the failure ends the wait.
    await Promise.race([env.committed.then(() => env.flushed), this.failureSignal]).catch(this.recordFailure);
    if (this.failing) await this.failureSignal;
    if (this.failure !== undefined) {
      throw new StreamsException(`Writing to the LMDB store ${this.storeName} failed: ${String(this.failure)}`, { cause: this.failure });
    }
  }

  async close(): Promise<void> {
    const env = this.environment();
    try {
      await this.flush();
    } finally {
      this.tables.clear();
      this.meta = undefined;
      this.env = undefined;
      // lmdb-js's close waits for a failed transaction forever: an environment whose writes failed is let go.
      if (!this.failing) await env.close();
      else void env.close().catch(() => undefined);
    }
  }

  sizeBytes(): number {
    const stats = this.environment().getStats() as { lastPageNumber: number; pageSize: number };
    return (stats.lastPageNumber + 1) * stats.pageSize;
  }

  private openDb(name: string): Database<Buffer, Buffer> {
    return this.environment().openDB<Buffer, Buffer>(name, { keyEncoding: 'binary', encoding: 'binary' });
  }

  private environment(): RootDatabase<Buffer, Buffer> {
    if (this.env === undefined) throw new IllegalState(`LMDB store ${this.storeName} is not open`);
    return this.env;
  }

  private resetFailure(): void {
    this.failing = false;
    this.failure = undefined;
    this.failureSignal = new Promise((resolve) => (this.signalFailure = resolve));
  }

  /**
   * Once a commit failed, every write is refused: the task fails, and is restored from its changelogs. lmdb-js gives
   * the cause (such as ENOSPC) a moment after the failure: a refusal names it once it is known. A
   * write that would leave the disk short of `state.dir.min.free.bytes` is refused before it reaches LMDB.
   */
  private readonly refusal = (bytes: number): Error | undefined => {
    if (!this.failing) return this.diskSpace?.refusal(bytes);
    const cause = this.failure === undefined ? 'an LMDB commit failed (its cause is not reported yet)' : String(this.failure);
    return new StreamsException(`Writing to the LMDB store ${this.storeName} failed: ${cause}; it takes no more writes`);
  };

  private readonly recordFailure = (error: unknown): void => {
    // A thenable, not `instanceof Promise`: under jest the promise comes from another realm.
    const commitError = (error as { commitError?: PromiseLike<unknown> } | undefined)?.commitError;
    const cause = typeof commitError?.then === 'function' ? Promise.resolve(commitError).then(() => error, (reason: unknown) => reason) : Promise.resolve(error);
    if (this.failing) return;
    this.failing = true;
    void cause.then((reason) => {
      this.failure = reason;
      this.signalFailure();
    });
  };
}
