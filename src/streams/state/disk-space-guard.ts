import { existsSync, statfsSync } from 'node:fs';
import * as path from 'node:path';
import { StreamsException } from '../../errors';

/** A write re-checks the free space (a statfs: half a microsecond) once this much has been written since the last check... */
const CHECK_EVERY_BYTES = 64 * 1024;
/** ...or once this long has passed: a disk filled by someone else while the store was idle is seen at once. */
const CHECK_EVERY_MS = 100;

/**
 * Refuses a store's writes while the disk of its directory has less than `state.dir.min.free.bytes` free. LMDB on a
 * full disk does not fail cleanly: lmdb-js's native writer, its commit failing with ENOSPC, has corrupted the heap
 * and aborted the process (glibc "corrupted size vs. prev_size"). Refused before LMDB sees it, the write fails its
 * task with an error that says why, and the process lives on. The check is a statfs every 64 KiB written or
 * every 100 ms of writing, so a disk filled by another process between two checks can still reach LMDB full.
 */
export class DiskSpaceGuard {
  private writtenSinceCheck = Number.POSITIVE_INFINITY;
  private checkedAt = 0;
  private shortage: Error | undefined;

  constructor(
    private readonly storeName: string,
    private readonly directory: string,
    private readonly minFreeBytes: number,
    private readonly freeBytes: (directory: string) => number = freeBytesOf,
  ) {}

  /** Why a write of `bytes` must not reach the store, or undefined when the disk has room for it. */
  refusal(bytes: number): Error | undefined {
    if (this.minFreeBytes <= 0) return undefined;
    this.writtenSinceCheck += bytes;
    const now = Date.now();
    if (this.writtenSinceCheck >= CHECK_EVERY_BYTES || now - this.checkedAt >= CHECK_EVERY_MS) this.check(now);
    return this.shortage;
  }

  private check(now: number): void {
    this.writtenSinceCheck = 0;
    this.checkedAt = now;
    const free = this.freeBytes(this.directory);
    this.shortage =
      free >= this.minFreeBytes
        ? undefined
        : new StreamsException(
            `Not enough disk space for the store ${this.storeName}: ${this.directory} has ${free} bytes free, less than ` +
              `state.dir.min.free.bytes (${this.minFreeBytes}); the store takes no writes until space is freed`,
          );
  }
}

function freeBytesOf(directory: string): number {
  const stats = statfsSync(directory);
  return stats.bavail * stats.bsize;
}

/** The free bytes of the disk that holds `directory`, or of its nearest existing parent (a state directory not made yet). */
export function freeDiskBytes(directory: string): number {
  let dir = path.resolve(directory);
  while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return freeBytesOf(dir);
}
