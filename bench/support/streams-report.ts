/**
 * What the word-count programs run as child processes report on stdout, one JSON object a line, alike for Sluice
 * (wordcount/sluice-wordcount.ts) and Kafka Streams (wordcount/java/ReportingWordCountDemo.java): every state change,
 * restore progress every second until the first RUNNING, and at the first RUNNING what the restore took.
 */

export type StreamsReport =
  | { report: 'state'; state: string; previous: string; at: number }
  /** Records restored so far and still to restore, over every store partition of the process. */
  | { report: 'progress'; state: string; restored: number; remaining: number; at: number }
  /** `phaseMs`: from the start of the first store partition's restoration to the end of the last one's. */
  | { report: 'restored'; records: number; phaseMs: number; at: number };

/** How often the programs report progress until RUNNING. */
export const PROGRESS_INTERVAL_MS = 1000;

/** The report on a line of a program's stdout, or undefined for any other line. */
export function parseReport(line: string): StreamsReport | undefined {
  if (!line.startsWith('{"report":')) return undefined;
  try {
    return JSON.parse(line) as StreamsReport;
  } catch {
    return undefined;
  }
}

/** What a program has reported so far. */
export class StreamsReports {
  /** Every state change, in order. */
  readonly states: Extract<StreamsReport, { report: 'state' }>[] = [];
  lastProgress: Extract<StreamsReport, { report: 'progress' }> | undefined;
  restored: Extract<StreamsReport, { report: 'restored' }> | undefined;
  /** When this process received the first RUNNING (epoch ms), or undefined before. */
  runningAt: number | undefined;

  /** Takes one stdout line; other lines than reports are ignored. */
  readonly onLine = (line: string): void => {
    const report = parseReport(line);
    if (report === undefined) return;
    switch (report.report) {
      case 'state':
        this.states.push(report);
        if (report.state === 'RUNNING') this.runningAt ??= Date.now();
        return;
      case 'progress':
        this.lastProgress = report;
        return;
      case 'restored':
        this.restored = report;
        return;
    }
  };

  /** The state last reported (CREATED before any). */
  get state(): string {
    return this.states[this.states.length - 1]?.state ?? 'CREATED';
  }
}
