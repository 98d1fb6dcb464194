/**
 * The topologies of the stream-thread tests, in a module of their own: a stream thread in a worker builds its
 * topology from a module (StreamsInstance's topologySource), so the instance and its workers build the same one.
 */
import * as fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { Serdes, StreamsBuilder } from '../../../src';
import type { Topology, TopologySource } from '../../../src';

export const THREAD_STORE = 'counts';

/**
 * The word count, with a step that throws when it meets `word` for the `nth` time: in any thread, or only in the
 * stream threads that run in workers. Once per topology built, or, given `onceFile`, once in the process: each
 * worker builds its own topology, and a replacement would fail again.
 */
export function flakyWordCount(input: string, output: string, word: string, nth: number, failIn: 'any' | 'worker' = 'any', onceFile?: string): Topology {
  let seen = 0;
  const fails = failIn === 'any' || !isMainThread;
  const first = (): boolean => {
    if (onceFile === undefined) return true;
    try {
      fs.writeFileSync(onceFile, '', { flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  };
  const builder = new StreamsBuilder();
  builder
    .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.split(' '))
    .mapValues((w) => {
      if (fails && w === word && ++seen === nth && first()) throw new Error(`a transient failure on the ${nth}th "${word}"`);
      return w;
    })
    .groupBy((_key, w) => w, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: THREAD_STORE })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

/** Where the threads in workers build `flakyWordCount(...args)` from. */
export function flakyWordCountSource(...args: Parameters<typeof flakyWordCount>): TopologySource {
  return { module: __filename, export: 'flakyWordCount', args };
}

/** A pass-through of the lines that fails on `line` (in any thread, or only in workers): the SHUTDOWN_APPLICATION test's topology. */
export function failingLines(input: string, output: string, line: string, failIn: 'any' | 'worker' = 'any'): Topology {
  const fails = failIn === 'any' || !isMainThread;
  const builder = new StreamsBuilder();
  builder
    .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .mapValues((value) => {
      if (fails && value === line) throw new Error(`cannot process the line "${value}"`);
      return value;
    })
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
  return builder.build();
}

/** Where the threads in workers build `failingLines(...args)` from. */
export function failingLinesSource(...args: Parameters<typeof failingLines>): TopologySource {
  return { module: __filename, export: 'failingLines', args };
}
