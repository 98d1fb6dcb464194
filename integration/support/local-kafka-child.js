/**
 * A stand-in for a test run that started a broker: starts a LocalKafka, prints one JSON line
 * ({ bootstrapServers, dir, watchdogPid }) and then waits to be killed. With `--stop` it stops the broker
 * when a line arrives on stdin and then exits with status 42 on its own, which proves that stop() holds the
 * process until it has finished. Plain
 * JavaScript run by plain node, so it loads Sluice's TypeScript through a minimal transpile-only hook
 * (ts-node is not a dependency).
 */
'use strict';
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};

const { LocalKafka } = require('../../src/host/broker/local-kafka');

LocalKafka.start().then(
  async (broker) => {
    process.stdout.write(
      JSON.stringify({ bootstrapServers: broker.bootstrapServers, dir: broker.dir, watchdogPid: broker.watchdogPid }) + '\n',
    );
    if (process.argv.includes('--stop')) {
      process.stdin.once('data', async () => {
        process.stdin.destroy();
        await broker.stop();
        process.exitCode = 42;
      });
    } else {
      setInterval(() => undefined, 60_000);
    }
  },
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);
