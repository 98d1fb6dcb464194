/**
 * Graceful shutdown on SIGTERM (Kubernetes) and SIGINT (Ctrl-C): the first signal stops everything in order and
 * exits 0; a second one exits at once, for when stopping hangs.
 */
export function stopOnSignals(stop: () => Promise<void>, say: (line: string) => void): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      say(`${signal} again: exiting without waiting`);
      process.exit(130);
    }
    stopping = true;
    say(`${signal}: stopping (again to force)`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        say(`stopping failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
