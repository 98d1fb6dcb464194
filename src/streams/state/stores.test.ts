import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TopologyException } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from './recording-store-context';
import { Stores } from './stores';

const defaults = { keySerde: Serdes.Long(), valueSerde: Serdes.Json() };

describe('Stores', () => {
  it('describes stores and their changelog topics as Kafka Streams does', () => {
    const kv = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('kv'));
    expect(kv).toMatchObject({ name: 'kv', type: 'key_value', persistent: true, loggingEnabled: true, logConfig: { 'cleanup.policy': 'compact' } });
    expect(kv.retentionPeriod).toBeUndefined();

    const window = Stores.timestampedWindowStoreBuilder(Stores.inMemoryWindowStore('w', 3600000, 60000, false));
    expect(window).toMatchObject({ type: 'timestamped_window', persistent: false, retentionPeriod: 3600000 });
    expect(window.logConfig).toEqual({ 'cleanup.policy': 'compact,delete', 'retention.ms': String(3600000 + 86400000) });

    const session = Stores.sessionStoreBuilder(Stores.persistentSessionStore('s', 1000)).withLoggingEnabled({
      'retention.ms': '5',
      'min.insync.replicas': '2',
    });
    expect(session.logConfig).toEqual({ 'cleanup.policy': 'compact,delete', 'retention.ms': '5', 'min.insync.replicas': '2' });
    expect(session.withLoggingDisabled()).toMatchObject({ loggingEnabled: false, logConfig: {} });
    expect(Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore('t')).type).toBe('timestamped_key_value');
    expect(Stores.windowStoreBuilder(Stores.persistentWindowStore('w', 10, 10, true)).type).toBe('window');
  });

  it('builds a new store per call, taking unset serdes from the defaults', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-stores-'));
    const builder = Stores.keyValueStoreBuilder<number, unknown>(Stores.persistentKeyValueStore('kv'), undefined, Serdes.String());
    const first = builder.build(defaults);
    const second = builder.build(defaults);
    expect(first).not.toBe(second);
    expect(first.keySerde).toBe(Serdes.Long());
    expect(first.valueSerde).toBe(Serdes.String());
    const inferred = Stores.sessionStoreBuilder(Stores.inMemorySessionStore('s', 10)).build(defaults);
    expect(inferred.keySerde).toBe(Serdes.Long());
    expect(inferred.valueSerde).toBe(Serdes.Json());

    first.init(new RecordingStoreContext(join(dir, '0_0')));
    second.init(new RecordingStoreContext(join(dir, '0_1')));
    first.put(1, 'one');
    expect(second.get(1)).toBeUndefined();
    await first.close();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects invalid suppliers', () => {
    expect(() => Stores.persistentKeyValueStore('')).toThrow(TopologyException);
    expect(() => Stores.persistentSessionStore('s', Number.NaN)).toThrow(TopologyException);
    expect(() => Stores.inMemoryWindowStore('w', 100, 101, false)).toThrow(/no smaller than its window size/);
  });
});
