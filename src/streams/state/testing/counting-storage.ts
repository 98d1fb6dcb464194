import type { BytesRange, BytesTable } from '../bytes-table';
import { InMemoryStorage } from '../in-memory-storage';

/** In-memory tables that count the entries their range reads hand out: what a scan costs, without timing it. */
export class CountingStorage extends InMemoryStorage {
  visited = 0;

  override table(name: string): BytesTable {
    const table = super.table(name);
    const counter = this;
    return {
      get: (key: Buffer) => table.get(key),
      put: (key: Buffer, value: Buffer | null) => table.put(key, value),
      restore: (key: Buffer, value: Buffer | null) => table.restore(key, value),
      approximateNumEntries: () => table.approximateNumEntries(),
      clear: () => table.clear(),
      *range(range: BytesRange) {
        for (const entry of table.range(range)) {
          counter.visited++;
          yield entry;
        }
      },
    };
  }
}
