/**
 * How busy the whole machine's CPUs were (from /proc/stat): a side that cannot use more cores may be short of
 * them, the broker and the harness sharing the machine.
 */
import * as fs from 'node:fs';

/** Jiffies of all CPUs: busy (anything but idle and iowait) and in all; undefined where there is no /proc/stat. */
export interface CpuTimes {
  busy: number;
  total: number;
}

export function machineCpuTimes(): CpuTimes | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is counted in user already)
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return { busy, total: busy + idle! + iowait! };
  } catch {
    return undefined;
  }
}

/** The share of the machine's CPU time that was busy between two readings (0 to 1). */
export function busyShare(from: CpuTimes | undefined, to: CpuTimes | undefined): number | undefined {
  if (from === undefined || to === undefined || to.total === from.total) return undefined;
  return (to.busy - from.busy) / (to.total - from.total);
}
