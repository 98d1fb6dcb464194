/**
 * LMDB and msgpackr (which LMDB loads) run on the prebuilt binaries their packages ship, on each Node.js that
 * `npm run test:ci` runs the tests on: nothing is compiled at install, and msgpackr does not fall back to its slower
 * JavaScript. A binary for the Node.js ABI, else the N-API one, whichever the package picks.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';

const platform = `${process.platform}-${process.arch}`;

(process.platform === 'linux' ? it : it.skip)(`loads LMDB and msgpackr-extract from their prebuilt binaries (Node.js ${process.versions.node}, ${platform})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-native-'));
  try {
    const db = open({ path: dir, encoding: 'binary' });
    db.putSync('key', Buffer.from('value'));
    expect(db.get('key')).toEqual(Buffer.from('value'));
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const loaded = new Set(
    readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((line) => line.split(/\s+/).pop()!)
      .filter((file) => file.endsWith('.node')),
  );
  const prebuilt = (pkg: string) => expect.stringMatching(new RegExp(`/node_modules/${pkg}-${platform}/node\\.(abi${process.versions.modules}|napi)\\.\\w+\\.node$`));
  expect([...loaded]).toEqual(expect.arrayContaining([prebuilt('@lmdb/lmdb'), prebuilt('@msgpackr-extract/msgpackr-extract')]));
});
