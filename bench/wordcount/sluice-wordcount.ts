/**
 * The Sluice side of the word-count benchmark as a program of its own, the counterpart of Kafka Streams'
 * WordCountDemo: `node sluice-wordcount.js '<streams config as JSON>' <input> <output>`. It runs until SIGTERM
 * (then closes) and exits 1 when the instance fails.
 */
import pino from 'pino';
import { StreamsInstance } from '../../src';
import { wordCountTopology } from '../../examples/word-count';

async function main(): Promise<void> {
  const [config, input, output] = process.argv.slice(2);
  if (config === undefined || input === undefined || output === undefined) throw new Error('usage: sluice-wordcount <config JSON> <input> <output>');
  const instance = new StreamsInstance(wordCountTopology(input, output), JSON.parse(config) as Record<string, unknown>, {
    logger: pino({ level: 'warn' }),
  });
  instance.on('error', (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
  process.once('SIGTERM', () => void instance.close().then(() => process.exit(0)));
  await instance.start();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
