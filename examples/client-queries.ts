/**
 * sluice/client on the word count (docs/client-and-cli.md): with `npm run demo` running,
 * `node dist/examples/client-queries.js` prints what the demo's word count knows of 'kafka', and its state events
 * until Ctrl-C. Outside this repository the import is `from 'sluice/client'`.
 */
import { SluiceApiError, SluiceClient } from '../src/client';

/** The word count's answers for one word: its count, the number of words, the words from 'k' to 'l'. */
export async function wordCountReport(client: SluiceClient, applicationId: string, word: string): Promise<string[]> {
  const counts = client.store(applicationId, 'count').keyValue<string, number>();
  const lines = [`${word}: ${(await counts.get(word)).value ?? 'not seen yet'}`];
  lines.push(`distinct words: ${(await counts.count()).value}`);
  const range = await counts.range('k', 'l');
  lines.push(`from k to l: ${range.records.map((record) => `${record.key}=${record.value}`).join(', ')}`);
  try {
    await client.store(applicationId, 'no-such-store').keyValue().get(word);
  } catch (error) {
    if (error instanceof SluiceApiError) lines.push(`${error.status} ${error.exception}: ${error.message}`);
  }
  return lines;
}

async function main(): Promise<void> {
  const client = new SluiceClient({ url: process.env.SLUICE_URL ?? 'http://localhost:8080', token: process.env.SLUICE_TOKEN });
  for (const line of await wordCountReport(client, 'word-count', 'kafka')) console.log(line);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  for await (const event of client.events('word-count', 'state', { signal: controller.signal })) {
    if (event.type === 'state') console.log(`state: ${event.data.previous} -> ${event.data.state}`);
  }
  await client.close();
}

if (require.main === module) void main();
