/** What `work` gives, or undefined if `timeoutMs` (when given) passes first; the work goes on in the background. */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T | undefined> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}
