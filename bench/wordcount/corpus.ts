/** The fixed corpus of the word-count benchmark: line i, deterministic, 3 to 7 words. */
export function corpusLine(i: number): string {
  const words = ['kafka', 'streams', 'sluice', 'node', 'table', 'stream', 'topic', 'partition', 'record', 'state', 'store', 'query'];
  const n = 3 + (i % 5);
  const out: string[] = [];
  for (let j = 0; j < n; j++) out.push(words[(i * 7 + j * 13) % words.length]!);
  return out.join(' ');
}
