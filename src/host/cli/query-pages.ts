/**
 * `sluice query --all`: every page of a paged query (docs/queries.md, "Paging"), followed through its continuation
 * tokens and written as NDJSON while the pages come, one line per record or failed part. Only one page is held at a
 * time, and each line waits for standard output to take the one before, so a large store costs no more memory than
 * a page (`--set limit=` bounds a page).
 */

import type { QueryOptions, QueryResult, StoreRecord } from '../../client';

/** A record's line: the record as the API gives it, with the part that answered it. */
export interface RecordLine extends StoreRecord {
  part: 'success';
  server: string;
  remote: boolean;
  standby?: boolean;
  lag?: number;
}

/** A failed part's line, or a page that failed as a whole (its status and error, no server). */
export interface FailureLine {
  part: 'failure';
  status: string;
  server?: string;
  remote?: boolean;
  errors: { message: string }[];
}

/** Writes a chunk, resolving once the destination takes more: a pipe's reader sets the pace, not the node. */
export type Write = (chunk: string) => Promise<void>;

export function stdoutWriter(stream: NodeJS.WritableStream = process.stdout): Write {
  return (chunk) =>
    new Promise((resolve, reject) => {
      if (stream.write(chunk, (error) => (error ? reject(error) : undefined))) resolve();
      else stream.once('drain', resolve);
    });
}

/** The NDJSON lines of one page: its records, then its failed parts (or the page's own error when it has no part). */
export function pageLines(result: QueryResult): string[] {
  const lines: string[] = [];
  for (const part of result.success) {
    for (const record of part.records) {
      const line: RecordLine = {
        part: 'success',
        server: part.server,
        remote: part.remote,
        ...(part.standby === undefined ? {} : { standby: part.standby }),
        ...(part.lag === undefined ? {} : { lag: part.lag }),
        ...record,
      };
      lines.push(`${JSON.stringify(line)}\n`);
    }
  }
  for (const part of result.failure) {
    const line: FailureLine = { part: 'failure', status: result.status, server: part.server, remote: part.remote, errors: part.errors };
    lines.push(`${JSON.stringify(line)}\n`);
  }
  if (!result.complete && result.failure.length === 0) {
    const line: FailureLine = { part: 'failure', status: result.status, errors: [{ message: result.raw.result.error ?? `query status ${result.status}` }] };
    lines.push(`${JSON.stringify(line)}\n`);
  }
  return lines;
}

/** What paging needs of a store (a StoreRef). */
export interface PagedStore {
  withOptions(options: QueryOptions): PagedStore;
  query(type: string, clause: string, params: Readonly<Record<string, unknown>>): Promise<QueryResult>;
}

/** Runs the query page after page until the node gives no `next`; answers whether every page was complete. */
export async function writeAllPages(
  store: PagedStore,
  query: { type: string; clause: string; params: Readonly<Record<string, unknown>> },
  write: Write,
): Promise<boolean> {
  let complete = true;
  let next: string | undefined;
  do {
    const page = next === undefined ? store : store.withOptions({ next });
    const result = await page.query(query.type, query.clause, query.params);
    complete &&= result.complete;
    for (const line of pageLines(result)) await write(line);
    next = result.raw.next;
  } while (next !== undefined);
  return complete;
}
