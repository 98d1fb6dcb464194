import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigException } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { RecordingStoreContext } from '../state/recording-store-context';
import { Stores } from '../state/stores';
import type { StateStore } from '../state/store';
import { loadStoreConfigSetter, StoreStatisticsDumper } from './store-statistics';

describe('store statistics', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-stats-test-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes one JSON line per store and rotates the file past log.maxFileSize', async () => {
    const store = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore('counts'), Serdes.String(), Serdes.Long()).build({
      keySerde: Serdes.String(),
      valueSerde: Serdes.Long(),
    }) as unknown as StateStore & { put(k: string, v: number): void };
    store.init(new RecordingStoreContext(path.join(dir, 'task')));
    store.put('a', 1);
    store.put('b', 2);
    const dumper = new StoreStatisticsDumper({
      logDir: path.join(dir, 'logs'),
      applicationId: 'app',
      periodSec: 60,
      maxFileSize: 150,
      stores: () => [{ taskId: '0_0', store }],
    });
    dumper.start();
    dumper.dump();
    const line = JSON.parse(fs.readFileSync(dumper.file, 'utf8').trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ task: '0_0', store: 'counts', type: 'key_value', entries: 2, puts: 2 });
    dumper.dump();
    dumper.dump();
    dumper.stop();
    expect(fs.existsSync(`${dumper.file}.1`)).toBe(true);
    expect(fs.statSync(dumper.file).size).toBeLessThan(400);
    await store.close();
  });

  it('loads the config setter module and refuses one without a function', () => {
    const good = path.join(dir, 'setter.js');
    fs.writeFileSync(good, 'module.exports = (name, options) => { options.mapSize = 1024 * 1024 * 64; };');
    const options: Record<string, unknown> = {};
    loadStoreConfigSetter(good)('s', options);
    expect(options.mapSize).toBe(64 * 1024 * 1024);
    const bad = path.join(dir, 'bad.js');
    fs.writeFileSync(bad, 'module.exports = { notAFunction: 1 };');
    expect(() => loadStoreConfigSetter(bad)).toThrow(ConfigException);
    expect(() => loadStoreConfigSetter(path.join(dir, 'missing.js'))).toThrow(/cannot load/);
  });
});
