/** The soak's errors, counted by kind per minute: every one counts against the goal of none. */
import { SluiceApiError } from '../../src/client/errors';
import { SluiceError } from '../../src/errors';

/** How many of one kind, and the first message of that kind in the minute (enough to find the cause). */
export interface ErrorCount {
  count: number;
  first: string;
}

export class ErrorTally {
  private minute = new Map<string, ErrorCount>();
  private all = 0;

  add(kind: string, message: string): void {
    const seen = this.minute.get(kind);
    if (seen === undefined) this.minute.set(kind, { count: 1, first: message.replace(/\s+/g, ' ').slice(0, 300) });
    else seen.count += 1;
    this.all += 1;
  }

  /** Every error since the start. */
  get total(): number {
    return this.all;
  }

  /** The minute's errors by kind; the next minute starts empty. */
  takeMinute(): Map<string, ErrorCount> {
    const minute = this.minute;
    this.minute = new Map();
    return minute;
  }
}

/** The kind of a thrown error: the server's exception and status for an error answer, else the error's name. */
export function errorKind(error: unknown): string {
  if (error instanceof SluiceApiError) return `HTTP ${error.status} ${error.exception}`;
  if (error instanceof SluiceError) return error.exception;
  return error instanceof Error ? error.name : 'Error';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
