/** Figures read from a node's `/prometheus` (text exposition 0.0.4), as the benchmarks print them. */

/**
 * The sum of the samples of metric `name` whose labels include every one of `labels` (none: all of them);
 * undefined when no sample matches.
 */
export function prometheusSum(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  // Preceded by the start or a comma, so that `group` does not match `tag_group`.
  const wanted = Object.entries(labels).map(([label, value]) => `,${label}="${value}"`);
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample?.[1] !== name || !wanted.every((pair) => `,${sample[2] ?? ''}`.includes(pair))) continue;
    sum = (sum ?? 0) + Number(sample[3]);
  }
  return sum;
}
