/**
 * One reading of where a Sluice node's memory is, from outside it: the V8 heap and external memory as its own
 * /prometheus reports them (prom-client's default metrics), resident memory anonymous and file-backed from
 * /proc/<pid>/smaps_rollup, the resident part of LMDB's memory maps from /proc/<pid>/smaps, and the size of the
 * LMDB files under its state directory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from 'undici';
import { prometheusSum } from '../support/prometheus';

export interface Breakdown {
  rss: number | undefined;
  /** Records the stream threads have processed (`process-total`). */
  processed: number | undefined;
  heapUsed: number | undefined;
  heapTotal: number | undefined;
  /** The young generation in use: new space and the young generation's large objects. */
  youngUsed: number | undefined;
  oldUsed: number | undefined;
  largeObjectsUsed: number | undefined;
  /** Memory V8 knows to be held outside its heap for JS objects: Buffers' and ArrayBuffers' bytes above all. */
  external: number | undefined;
  anonymous: number | undefined;
  fileBacked: number | undefined;
  /** Resident pages of the `.mdb` files' maps (a part of fileBacked). */
  lmdbResident: number | undefined;
  /** Disk space the `.mdb` files take. */
  lmdbFiles: number;
  /** What the stream threads' record caches hold, by their own estimate. */
  recordCache: number | undefined;
  /** Seconds the stream threads have waited for the broker to take what they produced (back-pressure). */
  producerWaitS: number | undefined;
}

/** Reads each part; one that cannot be read (the process gone, the endpoint busy) is undefined. */
export async function readBreakdown(url: string, pid: number, stateDir: string): Promise<Breakdown> {
  const prometheus = await request(`${url}/prometheus`)
    .then((response) => response.body.text())
    .catch(() => '');
  const metric = (name: string, labels?: Record<string, string>) => prometheusSum(prometheus, name, labels);
  const space = (name: string) => metric('nodejs_heap_space_size_used_bytes', { space: name });
  const rollup = kilobyteFields(readProc(`/proc/${pid}/smaps_rollup`));
  const rss = rollup.get('Rss');
  const anonymous = rollup.get('Anonymous');
  const young = [space('new'), space('new_large_object')];
  return {
    rss,
    processed: metric('streams_process_total', { group: 'stream-thread-metrics' }),
    heapUsed: metric('nodejs_heap_size_used_bytes'),
    heapTotal: metric('nodejs_heap_size_total_bytes'),
    youngUsed: young.every((n) => n === undefined) ? undefined : young.reduce<number>((sum, n) => sum + (n ?? 0), 0),
    oldUsed: space('old'),
    largeObjectsUsed: space('large_object'),
    external: metric('nodejs_external_memory_bytes'),
    anonymous,
    fileBacked: rss === undefined || anonymous === undefined ? undefined : rss - anonymous,
    lmdbResident: lmdbResident(readProc(`/proc/${pid}/smaps`)),
    lmdbFiles: lmdbFileBytes(stateDir),
    recordCache: metric('streams_cache_size_bytes', { group: 'stream-record-cache-metrics' }),
    producerWaitS: ((ns) => (ns === undefined ? undefined : ns / 1e9))(metric('streams_bufferpool_wait_time_ns_total', { group: 'producer-metrics' })),
  };
}

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The `Name:   N kB` lines of a smaps file, in bytes. */
function kilobyteFields(text: string | undefined): Map<string, number> {
  const fields = new Map<string, number>();
  for (const match of (text ?? '').matchAll(/^(\w+):\s+(\d+) kB$/gm)) fields.set(match[1]!, Number(match[2]) * 1024);
  return fields;
}

/** The Rss of every map of an `.mdb` file; each map's header line ends with the file's path. */
function lmdbResident(smaps: string | undefined): number | undefined {
  if (smaps === undefined) return undefined;
  let total = 0;
  let inLmdbMap = false;
  for (const line of smaps.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inLmdbMap = line.endsWith('.mdb');
    else if (inLmdbMap && line.startsWith('Rss:')) total += Number(/(\d+) kB/.exec(line)![1]) * 1024;
  }
  return total;
}

/** Allocated blocks rather than length: LMDB's files may be sparse. */
function lmdbFileBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) total += lmdbFileBytes(file);
    else if (entry.name.endsWith('.mdb')) {
      try {
        total += fs.statSync(file).blocks * 512;
      } catch {
        // Deleted meanwhile (a task's directory cleaned up).
      }
    }
  }
  return total;
}
