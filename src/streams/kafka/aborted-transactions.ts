/**
 * read_committed: which fetched records belong to aborted transactions, for the stream threads' consumers
 * (consumer-records.ts, record by record, as kafkajs' Batch filters) and the changelog reader (fetch-response.ts,
 * batch by batch, as the Java consumer does). A fetch lists the aborted transactions among its records, each by its
 * producer and first offset: from that offset on, the producer's transactional records are aborted, until its abort
 * marker. They are walked by first offset: the broker lists them in the order they ended, and kafkajs, walking them in
 * that order, handed out the records of an aborted transaction that began before another one but ended after it.
 */

/** An aborted transaction, as a Fetch response lists it (int64s as decimal text, as kafkajs hands them). */
export interface AbortedTransaction {
  producerId: string;
  firstOffset: string;
}

/** Control record type of an abort marker (a control record's key: int16 version, int16 type). */
const ABORT_MARKER = 0;

/** Whether a control record's key is that of an abort marker. */
function isAbortMarker(key: Buffer | null): boolean {
  return key !== null && key.length >= 4 && key.readInt16BE(2) === ABORT_MARKER;
}

/** The aborted transactions of one fetched partition, met in offset order. */
export class AbortedTransactions {
  private readonly pending: { producerId: string; firstOffset: number }[];
  private next = 0;
  /** Producers whose aborted transaction has begun and not yet met its marker. */
  private readonly aborting = new Set<string>();

  constructor(transactions: readonly AbortedTransaction[]) {
    this.pending = transactions.map((t) => ({ producerId: t.producerId, firstOffset: Number(t.firstOffset) })).sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** Whether transactional data of `producerId` up to `lastOffset` (a record's offset, or a batch's last) is aborted. */
  aborts(producerId: string, lastOffset: number): boolean {
    this.reach(lastOffset);
    return this.aborting.has(producerId);
  }

  /** A control record of `producerId` at `offset`: an abort marker ends the producer's aborted transaction. */
  control(producerId: string, offset: number, key: Buffer | null): void {
    this.reach(offset);
    if (this.aborting.has(producerId) && isAbortMarker(key)) this.aborting.delete(producerId);
  }

  private reach(offset: number): void {
    while (this.next < this.pending.length && this.pending[this.next]!.firstOffset <= offset) this.aborting.add(this.pending[this.next++]!.producerId);
  }
}
