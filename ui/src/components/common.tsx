/** Small pieces every view uses: state badges, times, loading and errors, headings, scrolling tables, polling. */

import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { zonedToMillis } from '../api';

const STATE_CLASS: Record<string, string> = {
  RUNNING: 'ok',
  REBALANCING: 'busy',
  CREATED: 'busy',
  PENDING_SHUTDOWN: 'busy',
  NOT_RUNNING: 'idle',
  STOPPED: 'idle',
  PENDING_ERROR: 'bad',
  ERROR: 'bad',
};

export function StateBadge({ state, testId }: { state: string; testId?: string }) {
  return (
    <span class={`badge ${STATE_CLASS[state] ?? 'idle'}`} data-testid={testId}>
      {state}
    </span>
  );
}

/** "12:01:02 (3 min ago)": when, and how long ago. */
export function Since({ zoned }: { zoned: string }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const at = zonedToMillis(zoned);
  return (
    <span title={zoned}>
      {new Date(at).toLocaleTimeString()} ({ago(now - at)})
    </span>
  );
}

function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return `${Math.floor(seconds / 3600)} h ago`;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return <p class="error">{error instanceof Error ? error.message : String(error)}</p>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header>
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** The view's level-one heading, which the navigation already shows to the eye. */
export function ViewHeading({ title }: { title: string }) {
  return <h1 class="visually-hidden">{title}</h1>;
}

/**
 * A table that scrolls sideways on a narrow screen: focusable, so that a keyboard can scroll it, and named for the
 * screen reader that lands on it.
 */
export function ScrollX({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="scroll-x" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/** Runs `load` now and every `intervalMs`, keeping its latest answer or error. */
export function usePoll<T>(load: () => Promise<T>, intervalMs: number, deps: unknown[]): { data: T | undefined; error: unknown } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown }>({ data: undefined, error: undefined });
  useEffect(() => {
    let live = true;
    const run = () =>
      load().then(
        (data) => live && setState({ data, error: undefined }),
        (error: unknown) => live && setState((previous) => ({ data: previous.data, error })),
      );
    void run();
    const timer = intervalMs > 0 ? setInterval(run, intervalMs) : undefined;
    return () => {
      live = false;
      if (timer !== undefined) clearInterval(timer);
    };
  }, deps);
  return state;
}
