/**
 * The Sluice side of the serde benchmark as a program of its own: `node sluice-orders.js '<streams config as JSON>'
 * <json|avro> <input> <output>`. It prints `{"report":"state",...}` lines as the word count's program does (the
 * harness measures from RUNNING on, past loading the modules and the registry client), runs until SIGTERM, and exits
 * 1 when the instance fails.
 */
import pino from 'pino';
import { StreamsInstance } from '../../src';
import type { StreamsReport } from '../support/streams-report';
import { orderTotalsTopology, VALUE_FORMATS, type ValueFormat } from './topology';

function report(line: StreamsReport): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function main(): Promise<void> {
  const [config, format, input, output] = process.argv.slice(2);
  if (config === undefined || !VALUE_FORMATS.includes(format as ValueFormat) || input === undefined || output === undefined) {
    throw new Error('usage: sluice-orders <config JSON> <json|avro> <input> <output>');
  }
  const instance = new StreamsInstance(orderTotalsTopology(input, output, format as ValueFormat), JSON.parse(config) as Record<string, unknown>, {
    logger: pino({ level: 'warn' }, pino.destination(2)),
  });
  instance.on('error', (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
  instance.on('state', (change) => report({ report: 'state', state: change.state, previous: change.previous, at: change.since }));
  process.once('SIGTERM', () => void instance.close().then(() => process.exit(0)));
  await instance.start();
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
