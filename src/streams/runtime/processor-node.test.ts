import { ProcessorException } from '../../errors';
import type { Processor } from '../processor/processor';
import type { StreamRecord } from '../processor/record';
import { ProcessorNode } from './processor-node';

function node(name: string, process: (record: StreamRecord<unknown, unknown>) => void): ProcessorNode {
  const processor: Processor<unknown, unknown, unknown, unknown> = { process };
  return new ProcessorNode({ kind: 'processor', name, supplier: () => processor, parents: [], stores: [] }, '0_0', processor);
}

const record = (value: string): StreamRecord<unknown, unknown> => ({ key: 'k', value, timestamp: 1, headers: {} });

describe('a processor node counts the records it fails on', () => {
  it('skipped by the processing handler or not, once, at the node that threw and not at those above it', () => {
    const child = node('child', (r) => {
      if (r.value === 'bad') throw new TypeError('bad value');
    });
    const parent = node('parent', (r) => child.process(r));
    let skipping = true;
    child.skipFailed = (_node, r) => r.value === 'bad' && skipping;
    parent.process(record('good'));
    parent.process(record('bad'));
    skipping = false;
    expect(() => parent.process(record('bad'))).toThrow(ProcessorException);
    expect(child.failed).toBe(2);
    expect(parent.failed).toBe(0);
    expect([child.processed, parent.processed]).toEqual([3, 3]);
  });
});
