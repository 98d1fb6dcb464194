/** The Sluice side of the word-count benchmark: sluice-wordcount.js as a child Node process. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startChild } from '../support/child-process';
import { SLUICE_NODE_FLAGS } from '../support/program';
import type { CommonSettings, Side } from './side';

export function sluiceSide(settings: CommonSettings, suffix: string): Side {
  const input = `bench-wc-in-${suffix}`;
  const output = `bench-wc-out-${suffix}`;
  return {
    label: 'Sluice',
    input,
    output,
    start(bootstrapServers, applicationId) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-'));
      const config = {
        'application.id': applicationId,
        'bootstrap.servers': bootstrapServers,
        'state.dir': path.join(dir, 'state'),
        'num.stream.threads': settings.threads,
        'commit.interval.ms': settings.commitIntervalMs,
        'cache.max.bytes.buffering': settings.cacheBytes,
        'processing.guarantee': settings.guarantee,
      };
      // Sluice's Node flags, then the benchmark's own command-line Node options, which win (NODE_OPTIONS reaches
      // the child too, but loses to both).
      const program = path.join(__dirname, 'sluice-wordcount.js');
      const nodeOptions = [...SLUICE_NODE_FLAGS, ...process.execArgv];
      return startChild('Sluice', process.execPath, [...nodeOptions, program, JSON.stringify(config), input, output], dir);
    },
  };
}
