import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStorage } from './in-memory-storage';
import { LmdbStorage } from './lmdb-storage';
import { RecordingStoreContext } from './recording-store-context';
import { defaultSegmentInterval, Segments } from './segments';

describe('Segments', () => {
  it('uses Kafka Streams default interval max(retention / 2, 60000)', () => {
    expect(defaultSegmentInterval(1000)).toBe(60000);
    expect(defaultSegmentInterval(86400000)).toBe(43200000);
    expect(defaultSegmentInterval(120001)).toBe(60000);
  });

  it('creates one table per interval, drops expired ones only when no reader is open', () => {
    const storage = new InMemoryStorage();
    storage.open();
    let readers = true;
    const segments = new Segments(storage, 100, 60, () => readers);
    segments.openExisting();
    segments.forWrite(0)?.put(Buffer.from('a'), Buffer.from('0'));
    segments.forWrite(60)?.put(Buffer.from('b'), Buffer.from('1'));
    segments.forWrite(130)?.put(Buffer.from('c'), Buffer.from('2'));
    expect(storage.tableNames()).toEqual(['segment.0', 'segment.60', 'segment.120']);
    expect(segments.overlapping(0, 200, true).length).toBe(3);

    expect(segments.forWrite(200)).toBeDefined();
    // observed 200: times <= 100 expired; segment 0 (0..59) is retired, segment 60 (60..119) still live.
    expect(segments.forRead(0)).toBeUndefined();
    expect(segments.forWrite(100)).toBeUndefined();
    expect(segments.forRead(101)).toBeDefined();
    expect(segments.overlapping(0, 200, false)).toHaveLength(3);
    expect(storage.tableNames()).toContain('segment.0');
    readers = false;
    segments.dropRetired();
    expect(storage.tableNames()).toEqual(['segment.60', 'segment.120', 'segment.180']);
  });

  it('saves the observed stream time with the data and expires on reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-segments-'));
    const context = new RecordingStoreContext(dir);
    const storage = new LmdbStorage();
    storage.open(context, 'w');
    const segments = new Segments(storage, 100000, 60000, () => false);
    segments.openExisting();
    segments.forWrite(0)?.put(Buffer.from('a'), Buffer.from('0'));
    segments.forWrite(90000)?.put(Buffer.from('b'), Buffer.from('1'));
    segments.saveObservedStreamTime();
    await storage.close();

    // A run with a longer retention finds the old segment and the saved time, then expires once time moves on.
    const reopened = new LmdbStorage();
    reopened.open(context, 'w');
    const again = new Segments(reopened, 100000, 60000, () => false);
    again.openExisting();
    expect(again.observedStreamTime).toBe(90000);
    expect(again.forRead(0)?.get(Buffer.from('a'))).toEqual(Buffer.from('0'));
    again.forWrite(170000);
    expect(again.forRead(0)).toBeUndefined();
    // Drops are asynchronous LMDB writes: the database list shows them once committed.
    await reopened.flush();
    expect(reopened.tableNames().sort()).toEqual(['segment.120000', 'segment.60000']);
    await reopened.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
