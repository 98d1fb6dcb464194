import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CorruptedTaskState } from '../../errors';
import { Serdes } from '../serdes/serdes';
import { checkLmdbHeader } from './lmdb-header';
import { RecordingStoreContext } from './recording-store-context';
import { Stores } from './stores';

let taskDir: string;
let envDir: string;
let file: string;

beforeEach(async () => {
  taskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-lmdb-header-'));
  const store = Stores.keyValueStoreBuilder<string, string>(Stores.persistentKeyValueStore('words')).build({ keySerde: Serdes.String(), valueSerde: Serdes.String() });
  store.init(new RecordingStoreContext(taskDir));
  for (let i = 0; i < 500; i++) store.put(`key-${i}`, `value-${i}`);
  await store.close();
  envDir = path.join(taskDir, 'lmdb', 'words');
  file = path.join(envDir, 'data.mdb');
});

afterEach(() => fs.rmSync(taskDir, { recursive: true, force: true }));

function damage(edit: (bytes: Buffer) => Buffer): void {
  fs.writeFileSync(file, edit(fs.readFileSync(file)));
}

describe('checkLmdbHeader', () => {
  it('accepts a store LMDB wrote, a missing file and an empty one', () => {
    expect(() => checkLmdbHeader(envDir)).not.toThrow();
    expect(() => checkLmdbHeader(path.join(taskDir, 'none'))).not.toThrow();
    fs.writeFileSync(file, Buffer.alloc(0));
    expect(() => checkLmdbHeader(envDir)).not.toThrow();
  });

  it.each([
    ['the first meta page overwritten', (b: Buffer) => b.fill(0x41, 0, 64)],
    ['the second meta page overwritten', (b: Buffer) => b.fill(0x41, 4096, 4096 + 64)],
    ['another data version', (b: Buffer) => (b.writeUInt32LE(999, 28), b)],
    ['a page size that is not a power of two', (b: Buffer) => (b.writeUInt32LE(3000, 48), b)],
    ['a file cut inside its meta pages', (b: Buffer) => b.subarray(0, 5000)],
    ['a file cut inside its first page', (b: Buffer) => b.subarray(0, 40)],
  ])('refuses %s', (_what, edit) => {
    damage(edit);
    expect(() => checkLmdbHeader(envDir)).toThrow(CorruptedTaskState);
  });

  it('keeps lmdb-js from opening a damaged file: the store refuses it with the error instead', () => {
    damage((b) => b.fill(0x41, 0, 64));
    const store = Stores.keyValueStoreBuilder<string, string>(Stores.persistentKeyValueStore('words')).build({ keySerde: Serdes.String(), valueSerde: Serdes.String() });
    expect(() => store.init(new RecordingStoreContext(taskDir))).toThrow(CorruptedTaskState);
  });
});
