import { MessageChannel } from 'node:worker_threads';
import { Channel } from './channel';

interface Calls {
  [name: string]: (...args: never[]) => unknown;
  double(n: number): Promise<number>;
  fail(): Promise<void>;
  bytes(data: Uint8Array): Promise<number>;
}
interface Notes {
  [name: string]: (...args: never[]) => unknown;
  told(what: string): void;
}

/** Two ends of one port pair, as the main thread and a worker hold them. */
function pair() {
  const { port1, port2 } = new MessageChannel();
  const told: string[] = [];
  const kafkaLike = Object.assign(new Error('the broker is away'), { retriable: true, type: 'REQUEST_TIMED_OUT' });
  const worker = new Channel<Record<string, never>, Notes>(port2, {
    double: async (n: number) => n * 2,
    fail: async () => {
      throw Object.assign(new Error('processing failed', { cause: kafkaLike }), { exception: 'StreamsException', code: 'SLUICE_STREAMS' });
    },
    bytes: async (data: Uint8Array) => data.length,
  });
  const main = new Channel<Calls, Record<string, never>>(port1, { told: (what: string) => told.push(what) });
  return { main, worker, told, close: () => (port1.close(), port2.close()) };
}

describe('Channel between the main thread and a worker', () => {
  it('answers calls, in any number at once, and carries notes one way', async () => {
    const { main, worker, told, close } = pair();
    try {
      expect(await Promise.all([main.call('double', 2), main.call('double', 21)])).toEqual([4, 42]);
      expect(await main.call('bytes', Buffer.from('abc'))).toBe(3);
      worker.note('told', 'hello');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(told).toEqual(['hello']);
    } finally {
      close();
    }
  });

  it("rebuilds a failure with what the runtime decides by: name, message, the catalogue's and kafkajs' fields, the cause", async () => {
    const { main, close } = pair();
    try {
      const error = await main.call('fail').catch((e: unknown) => e as Error & { exception?: string; code?: string; cause?: Error & { retriable?: boolean; type?: string } });
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({ message: 'processing failed', exception: 'StreamsException', code: 'SLUICE_STREAMS' });
      expect(error!.stack).toContain('processing failed');
      expect(error!.cause).toMatchObject({ message: 'the broker is away', retriable: true, type: 'REQUEST_TIMED_OUT' });
    } finally {
      close();
    }
  });

  it('fails the calls under way, and later ones, once the other side is gone', async () => {
    const { port1, port2 } = new MessageChannel();
    const main = new Channel<Calls, Record<string, never>>(port1, {});
    const pending = main.call('double', 1);
    main.close(new Error('the worker has ended'));
    await expect(pending).rejects.toThrow('the worker has ended');
    await expect(main.call('double', 1)).rejects.toThrow('the worker has ended');
    port1.close();
    port2.close();
  });
});
