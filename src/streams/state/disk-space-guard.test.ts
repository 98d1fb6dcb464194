import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Serdes } from '../serdes/serdes';
import { DiskSpaceGuard } from './disk-space-guard';
import { RecordingStoreContext } from './recording-store-context';
import { Stores } from './stores';

const MB = 1024 * 1024;

describe('DiskSpaceGuard', () => {
  let now = 1_000_000;
  beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
  afterEach(() => jest.restoreAllMocks());

  it('refuses writes while the disk has less than the minimum free, and takes them again once space is back', () => {
    let free = 10 * MB;
    const guard = new DiskSpaceGuard('words', '/state', 8 * MB, () => free);
    expect(guard.refusal(100)).toBeUndefined();
    free = 4 * MB;
    now += 100;
    expect(guard.refusal(100)?.message).toBe(
      'Not enough disk space for the store words: /state has 4194304 bytes free, less than state.dir.min.free.bytes (8388608); the store takes no writes until space is freed',
    );
    free = 20 * MB;
    now += 100;
    expect(guard.refusal(100)).toBeUndefined();
  });

  it('checks again after 64 KiB of writes or 100 ms, not at every write', () => {
    const checks: number[] = [];
    const guard = new DiskSpaceGuard('words', '/state', 8 * MB, () => (checks.push(now), 100 * MB));
    guard.refusal(10);
    expect(checks).toHaveLength(1);
    for (let i = 0; i < 64; i++) guard.refusal(1000);
    expect(checks).toHaveLength(1);
    guard.refusal(64 * 1024);
    expect(checks).toHaveLength(2);
    now += 99;
    guard.refusal(1);
    expect(checks).toHaveLength(2);
    now += 1;
    guard.refusal(1);
    expect(checks).toHaveLength(3);
  });

  it('with a minimum of 0 never checks', () => {
    const guard = new DiskSpaceGuard('words', '/state', 0, () => {
      throw new Error('checked');
    });
    expect(guard.refusal(10 * MB)).toBeUndefined();
  });
});

describe('a persistent store on a disk short of state.dir.min.free.bytes', () => {
  it('refuses the write with the reason and keeps what it had', async () => {
    const taskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-disk-space-'));
    try {
      const build = () => Stores.keyValueStoreBuilder<string, string>(Stores.persistentKeyValueStore('words')).build({ keySerde: Serdes.String(), valueSerde: Serdes.String() });
      const roomy = build();
      roomy.init(new RecordingStoreContext(taskDir, { minFreeDiskBytes: 1 }));
      roomy.put('kept', 'yes');
      await roomy.close();

      // More than any disk has free.
      const full = build();
      full.init(new RecordingStoreContext(taskDir, { minFreeDiskBytes: Number.MAX_SAFE_INTEGER }));
      expect(() => full.put('refused', 'no')).toThrow(/^Not enough disk space for the store words: .* bytes free, less than state\.dir\.min\.free\.bytes/);
      expect(full.get('refused')).toBeUndefined();
      expect(full.get('kept')).toBe('yes');
      await full.close();
    } finally {
      fs.rmSync(taskDir, { recursive: true, force: true });
    }
  });
});
