import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { createStateStoreMetrics } from '../metrics/streams-metrics';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from '../state/recording-store-context';
import type { KeyValueStore } from '../state/store';
import { Stores } from '../state/stores';
import { meteredStore } from './metered-store';

describe('meteredStore', () => {
  it("times each operation into Kafka Streams' stream-state-metrics and leaves the store's answers alone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-metered-test-'));
    const raw = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('counts'), Serdes.String(), Serdes.Long()).build({
      keySerde: Serdes.String(),
      valueSerde: Serdes.Long(),
    }) as unknown as KeyValueStore<string, number>;
    raw.init(new RecordingStoreContext(dir));
    const registry = new MetricsRegistry();
    const store = meteredStore(raw, createStateStoreMetrics(registry, 't-1', '0_0', 'in-memory', 'counts'), true);
    store.put('a', 1);
    store.put('b', 2);
    expect(store.get('a')).toBe(1);
    expect([...store.all()].map((kv) => kv.key)).toEqual(['a', 'b']);
    const value = (name: string): unknown =>
      registry.metrics({ group: 'stream-state-metrics', name }).find((m) => m.tags['in-memory-state-id'] === 'counts')?.value;
    expect(value('put-rate')).toBeGreaterThan(0);
    expect(value('get-latency-max')).toBeGreaterThanOrEqual(0);
    expect(value('all-rate')).toBeGreaterThan(0);
    expect(Number.isNaN(value('delete-latency-avg'))).toBe(true);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
