import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptedTaskState } from '../../errors';

/**
 * The two meta pages at the head of an LMDB data file, as the LMDB that lmdb-js builds lays them out: a 24-byte page
 * header, then `mm_magic`, `mm_version`, the address, the map size, and the free-space database, whose first field is
 * the page size. Checked before lmdb-js opens the file: lmdb-js reads a damaged head with no check of its own and
 * the process dies (SIGSEGV, SIGBUS), at every restart.
 */
const PAGE_HEADER_BYTES = 24;
const MAGIC_OFFSET = PAGE_HEADER_BYTES;
const VERSION_OFFSET = PAGE_HEADER_BYTES + 4;
const PAGE_SIZE_OFFSET = PAGE_HEADER_BYTES + 24;
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const MIN_PAGE_SIZE = 512;
const MAX_PAGE_SIZE = 65_536;

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/** Why a meta page is not LMDB's, or undefined when it is; `pageSize` is what the page says. */
function metaFault(page: Buffer, which: string): { fault?: string; pageSize: number } {
  if (page.length < PAGE_SIZE_OFFSET + 4) return { fault: `${which} meta page is cut short`, pageSize: 0 };
  const magic = page.readUInt32LE(MAGIC_OFFSET);
  if (magic !== MAGIC) return { fault: `${which} meta page has magic 0x${magic.toString(16)}, not LMDB's`, pageSize: 0 };
  const version = page.readUInt32LE(VERSION_OFFSET);
  if (version !== DATA_VERSION) return { fault: `${which} meta page has data version ${version}, expected ${DATA_VERSION}`, pageSize: 0 };
  const pageSize = page.readUInt32LE(PAGE_SIZE_OFFSET);
  if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0) {
    return { fault: `${which} meta page gives a page size of ${pageSize}`, pageSize: 0 };
  }
  return { pageSize };
}

/**
 * Throws CorruptedTaskState when the LMDB environment in `dir` has a data file whose head is not a valid LMDB head:
 * shorter than its two meta pages, either meta page without LMDB's magic and version, or page sizes that disagree.
 * A missing or empty file is a new store.
 */
export function checkLmdbHeader(dir: string): void {
  const file = join(dir, 'data.mdb');
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const first = metaFault(readAt(fd, 0, PAGE_SIZE_OFFSET + 4), 'the first');
    if (first.fault !== undefined) throw new CorruptedTaskState(file, first.fault);
    if (size < 2 * first.pageSize) throw new CorruptedTaskState(file, `${size} bytes, shorter than its two ${first.pageSize}-byte meta pages`);
    const second = metaFault(readAt(fd, first.pageSize, PAGE_SIZE_OFFSET + 4), 'the second');
    if (second.fault !== undefined) throw new CorruptedTaskState(file, second.fault);
    if (second.pageSize !== first.pageSize) throw new CorruptedTaskState(file, `meta pages give page sizes ${first.pageSize} and ${second.pageSize}`);
  } finally {
    closeSync(fd);
  }
}
