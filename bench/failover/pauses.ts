/**
 * Pauses a node showed while it was watched: of its processing (the longest time between two increases of its
 * processed count) and of its queries (the longest time the queries of one partition's keys failed). A node being
 * restarted is not watched: its own restart is not a pause of the others, so no pause spans it.
 */

/** In performance.now() time. */
export interface Pause {
  ms: number;
  /** When it began. */
  from: number;
}

export class Moments {
  private readonly runs: number[][] = [[]];
  private down = false;

  /** Its node is being restarted: nothing is watched until back(). */
  away(): void {
    this.down = true;
  }

  back(): void {
    this.down = false;
    this.runs.push([]);
  }

  get watching(): boolean {
    return !this.down;
  }

  add(at: number): void {
    if (!this.down) this.runs.at(-1)!.push(at);
  }

  /**
   * The longest pause that overlaps [from, to]: between two moments of one run, or from the last moment to `to`
   * while the node is still watched (a node that stopped answering altogether).
   */
  longestPause(from: number, to: number): Pause | undefined {
    let longest: Pause | undefined;
    const consider = (a: number, b: number): void => {
      if (b < from || a > to) return;
      if (longest === undefined || b - a > longest.ms) longest = { ms: b - a, from: a };
    };
    this.runs.forEach((run, r) => {
      for (let i = 1; i < run.length; i++) consider(run[i - 1]!, run[i]!);
      const last = run.at(-1);
      if (r === this.runs.length - 1 && !this.down && last !== undefined) consider(last, to);
    });
    return longest;
  }
}

/** A stretch in which the queries of one partition's keys on a node failed, in performance.now() time. */
export interface Failing {
  partition: number;
  from: number;
  to: number;
}

/**
 * The stretches in which queries of a partition's keys failed: from the send of the first that failed to the answer
 * of the next that succeeded (or the end, if none did).
 */
export class FailureStretches {
  private readonly open = new Map<number, number>();
  private readonly closed: Failing[] = [];
  /** Failed queries, and why the first failed (enough to find the cause). */
  count = 0;
  first: string | undefined;

  failed(partition: number, sentAt: number, why: string): void {
    this.count += 1;
    this.first ??= `partition ${partition}: ${why}`;
    if (!this.open.has(partition)) this.open.set(partition, sentAt);
  }

  answered(partition: number, at: number): void {
    const from = this.open.get(partition);
    if (from === undefined) return;
    this.closed.push({ partition, from, to: at });
    this.open.delete(partition);
  }

  /** Its node is being restarted: the stretches still open end here, as far as the others' pauses go. */
  closeAll(at: number): void {
    for (const partition of [...this.open.keys()]) this.answered(partition, at);
  }

  /** The longest stretch that began within [from, to], one still open ending at `to`. */
  longest(from: number, to: number): Failing | undefined {
    const all = [...this.closed, ...[...this.open].map(([partition, since]) => ({ partition, from: since, to }))];
    return all.filter((f) => f.from >= from && f.from <= to).reduce<Failing | undefined>((a, b) => (a === undefined || b.to - b.from > a.to - a.from ? b : a), undefined);
  }
}
