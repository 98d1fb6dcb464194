import pino from 'pino';
import { liveWorkerThreadIds } from '../worker-thread-ids';
import { WorkerStreamThread, type WorkerThreadHost } from './worker-stream-thread';

/** A worker whose topology cannot be built: it ends before it connects to any broker. */
function brokenThread(onExit: (threadId: number) => void): WorkerStreamThread {
  const host: WorkerThreadHost = {
    logger: pino({ level: 'silent' }),
    kafkaLogger: pino({ level: 'silent' }),
    assign: () => Promise.reject(new Error('not asked')),
    committedOffsets: () => Promise.resolve([]),
    releaseStandby: () => Promise.resolve(),
    publishEvent: () => undefined,
    fetchMaxBytes: { group: 52_428_800, restore: 52_428_800 },
    onExit,
  };
  return new WorkerStreamThread(
    {
      topology: { module: require.resolve('./topology-source'), export: 'noSuchFunction' },
      config: { 'application.id': 'worker-test', 'bootstrap.servers': '127.0.0.1:1', 'state.dir': '/tmp/sluice-worker-test' },
      clientId: 'worker-test-1',
      index: 1,
      number: 2,
      cacheBytes: 0,
      logLevel: 'silent',
      kafkaLogLevel: 'silent',
      partitionCounts: [],
      facts: { processId: 'p', standbyTasks: [], shutdownRequested: false },
      standbys: false,
      processRun: 'test-run',
    },
    host,
  );
}

describe('WorkerStreamThread', () => {
  it('fails once when its worker dies, ends DEAD, and hands its thread id back for the task locks it left', async () => {
    let exited: number | undefined;
    const thread = brokenThread((threadId) => (exited = threadId));
    expect(thread.name).toBe('worker-test-1-StreamThread-2');
    expect(thread.slot).toBe(1);
    const failures: Error[] = [];
    thread.on('fatal', (error) => failures.push(error));
    const dead = new Promise<void>((resolve) => thread.on('state', (state) => state === 'DEAD' && resolve()));
    await expect(thread.start()).rejects.toThrow();
    await dead;
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toContain("exports no function 'noSuchFunction'");
    expect(exited).toBeDefined();
    expect(liveWorkerThreadIds.has(exited!)).toBe(false);
    expect(thread.live).toBe(false);
    expect(await thread.positions()).toEqual([]);
    await thread.close();
  });
});
