/** What every benchmark program shares: its progress log, waiting, MB figures, the way it ends, how it runs Sluice, and its option parsing. */
import { InvalidArgumentError } from 'commander';

/** Progress goes to stderr; the figures alone go to stdout. */
export const log = (line: string): void => void process.stderr.write(`${line}\n`);

const POLL_MS = 500;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const mb = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MB`);

/** Node flags Sluice runs with, as `npm start` and the image run it (package.json, deploy/Dockerfile). */
export const SLUICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--max-old-space-size=1024'];

/** Runs a benchmark's main; an error ends it with its stack and exit code 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}

/** Polls `probe` every POLL_MS until `done` holds for its value (a probe that throws is not done yet); throws after timeoutMs. */
export async function until<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (done(value)) return value;
    } catch {
      // Not up yet.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/** A command-line option's value as a positive integer (commander's argument parser). */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('a positive integer is expected');
  return n;
}
