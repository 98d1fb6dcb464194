import { IllegalState } from '../../errors';
import type { BytesTable } from './bytes-table';
import { InMemoryTable } from './in-memory-table';
import type { StoreStorage } from './store-storage';

/** Tables in memory. As with Kafka Streams' in-memory stores, closing loses the data: restoration rebuilds it. */
export class InMemoryStorage implements StoreStorage {
  readonly persistent = false;
  private readonly tables = new Map<string, InMemoryTable>();
  private meta: InMemoryTable | undefined;

  open(): void {
    this.meta = new InMemoryTable();
  }

  get metadata(): BytesTable {
    if (this.meta === undefined) throw new IllegalState('In-memory storage used before open()');
    return this.meta;
  }

  table(name: string): BytesTable {
    let table = this.tables.get(name);
    if (table === undefined) {
      table = new InMemoryTable();
      this.tables.set(name, table);
    }
    return table;
  }

  dropTable(name: string): void {
    this.tables.delete(name);
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  restoreBatch(write: () => void): void {
    write();
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    this.tables.clear();
    this.meta = undefined;
  }

  sizeBytes(): undefined {
    return undefined;
  }
}
