import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Message, PartitionMetadata } from 'kafkajs';
import type { AbortedTransaction } from './aborted-transactions';
import { checkKafkajs, KAFKAJS_VERSION, kafkajsFixesInstalled, kafkajsState } from './kafkajs';
import { javaCompatiblePartitioner } from './client';
import { abortedFilter } from './consumer-records';
import { groupMessagesPerPartition } from './produce-request';
import type { KafkajsRequestQueue } from './request-queue';
import { kafkajsOriginal } from './testing/kafkajs-original';

const kafkajsGrouping = kafkajsOriginal<typeof groupMessagesPerPartition>('kafkajs/src/producer/groupMessagesPerPartition');
/** A record as the read_committed filter sees it (kafkajs' message fields). */
interface TransactionalRecord {
  offset: number;
  key: Buffer;
  isControlRecord: boolean;
  batchContext: { producerId: string; inTransaction: boolean };
}
type AbortedFilter = (args: { messages: TransactionalRecord[]; abortedTransactions: AbortedTransaction[] }) => TransactionalRecord[];
const kafkajsFilter = kafkajsOriginal<AbortedFilter>('kafkajs/src/consumer/filterAbortedMessages');

const metadata = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 1, replicas: [1], isr: [1] }));

it('kafkajs runs with the replacements', () => {
  expect(kafkajsFixesInstalled).toBe(true);
  expect(kafkajsGrouping).not.toBe(groupMessagesPerPartition);
});

describe('groupMessagesPerPartition', () => {
  it('groups exactly as kafkajs does: the same partitions, each with its messages in their order', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 2_000; i++) {
      messages.push(i % 7 === 0 ? { key: null, value: `v${i}` } : i % 11 === 0 ? { partition: i % 3, value: `p${i}` } : { key: `k${i % 97}`, value: `v${i}` });
    }
    // Keyed and explicit placements from Sluice's partitioner; keyless ones from a round robin that starts at 0
    // (Sluice's starts at a random partition), so that both sides see the same sequence.
    const partitioner = () => {
      const java = javaCompatiblePartitioner();
      let next = 0;
      return (a: { topic: string; partitionMetadata: PartitionMetadata[]; message: Message }) =>
        a.message.key === null && a.message.partition === undefined ? next++ % 6 : java(a);
    };
    const args = () => ({ topic: 't', partitionMetadata: metadata(6), messages, partitioner: partitioner() });
    const ours = groupMessagesPerPartition(args());
    const theirs = kafkajsGrouping(args());
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    for (const partition of Object.keys(theirs)) {
      expect(ours[Number(partition)]!.map((m) => m.value)).toEqual(theirs[Number(partition)]!.map((m) => m.value));
    }
  });

  it('gives nothing for a topic without partition metadata, as kafkajs does', () => {
    const args = { topic: 't', partitionMetadata: [], messages: [{ key: 'a', value: 'b' }], partitioner: () => 0 };
    expect(groupMessagesPerPartition(args)).toEqual(kafkajsGrouping(args));
  });
});

describe('abortedFilter', () => {
  /** Records of a partition: `P<n>:<offset>` data in a transaction, `A<n>:<offset>` producer n's abort marker. */
  const records = (...specs: string[]): TransactionalRecord[] =>
    specs.map((spec) => {
      const [, kind, producer, offset] = /^([PA])(\d+):(\d+)$/.exec(spec)!;
      const marker = kind === 'A';
      return {
        offset: Number(offset),
        key: marker ? Buffer.from([0, 0, 0, 0]) : Buffer.from(`k${offset}`),
        isControlRecord: marker,
        batchContext: { producerId: producer!, inTransaction: true },
      };
    });
  const kept = (messages: TransactionalRecord[]) => messages.filter((m) => !m.isControlRecord).map((m) => m.offset);
  /** The records Sluice's filter keeps, as kafkajs' filter answers them (control records are never kept). */
  const withoutAborted = (records: TransactionalRecord[], aborted: AbortedTransaction[]) => {
    const keeps = abortedFilter(aborted);
    return records.filter((r) => keeps({ ...r.batchContext, isControlBatch: r.isControlRecord }, r.offset, () => r.key));
  };
  // Producer 2's transaction began at 100 and producer 0's at 102; producer 0's was aborted first.
  const messages = records('P2:100', 'P1:101', 'P0:102', 'P2:103', 'A0:104', 'A2:105', 'P1:106');

  it('keeps what kafkajs keeps when the aborted transactions come in the order they began', () => {
    const aborted: AbortedTransaction[] = [
      { producerId: '2', firstOffset: '100' },
      { producerId: '0', firstOffset: '102' },
    ];
    expect(kept(withoutAborted(messages, aborted))).toEqual([101, 106]);
    expect(kept(withoutAborted(messages, aborted))).toEqual(kept(kafkajsFilter({ messages, abortedTransactions: aborted })));
  });

  it('drops every aborted record when the broker lists them in the order they ended (kafkajs kept one)', () => {
    const aborted: AbortedTransaction[] = [
      { producerId: '0', firstOffset: '102' },
      { producerId: '2', firstOffset: '100' },
    ];
    expect(kept(withoutAborted(messages, aborted))).toEqual([101, 106]);
    expect(kept(kafkajsFilter({ messages, abortedTransactions: aborted }))).toEqual([100, 101, 106]);
  });

  it('keeps every record but the markers when nothing was aborted', () => {
    expect(kept(withoutAborted(messages, []))).toEqual(messages.filter((m) => !m.isControlRecord).map((m) => m.offset));
  });
});

describe('checkKafkajs', () => {
  it('runs on the pinned kafkajs with Sluice replacements in place (this process)', () => {
    expect(kafkajsState).toEqual({ version: KAFKAJS_VERSION, fixesInstalled: true });
    expect(() => checkKafkajs()).not.toThrow();
  });

  it('refuses another kafkajs version, naming both', () => {
    expect(() => checkKafkajs({ version: '2.3.0', fixesInstalled: true })).toThrow(/finds kafkajs 2\.3\.0; install kafkajs 2\.2\.4 exactly/);
  });

  it('refuses a kafkajs loaded before Sluice, whose consumers would hand out its own records', () => {
    const early = { version: KAFKAJS_VERSION, fixesInstalled: false };
    expect(() => checkKafkajs(early)).toThrow(expect.objectContaining({ code: 'SLUICE_UNSUPPORTED_KAFKA_CLIENT', message: expect.stringMatching(/could not put its fetch decoding .* in place\. Import Sluice before kafkajs/) }));
  });
});

describe('RequestQueue.scheduleCheckPendingRequests', () => {
  type Queue = KafkajsRequestQueue & { destroy(): void };
  type QueueClass = new (options: object) => Queue;
  const RequestQueue = require('kafkajs/src/network/requestQueue') as QueueClass;
  const KafkajsRequestQueue = kafkajsOriginal<QueueClass>('kafkajs/src/network/requestQueue');
  const queueOptions = { maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'c', broker: 'b:9092' };
  const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const queueOf = (Queue: QueueClass) => new Queue({ ...queueOptions, logger: silent });

  /** The timers `run` sets, [callback, delay] each, held rather than set. */
  function timersSetBy(run: () => void): [() => void, number][] {
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout').mockImplementation((() => ({})) as unknown as typeof setTimeout);
    try {
      run();
      return setTimeoutSpy.mock.calls.map(([callback, delay]) => [callback as () => void, delay as number]);
    } finally {
      setTimeoutSpy.mockRestore();
    }
  }

  it('sets no timer after a response when nothing waits, where kafkajs set one for about minus the epoch', () => {
    // What a response does: the queue looks at its pending requests.
    const queue = queueOf(RequestQueue);
    expect(timersSetBy(() => queue.checkPendingRequests())).toEqual([]);
    expect(queue.throttleCheckTimeoutId).toBeNull();

    const kafkajs = queueOf(KafkajsRequestQueue);
    const theirs = timersSetBy(() => kafkajs.checkPendingRequests());
    expect(theirs).toEqual([[expect.any(Function), expect.any(Number)]]);
    expect(theirs[0]![1]).toBeLessThan(-Date.parse('2026-01-01'));
  });

  it("checks waiting requests at the throttle's end, else after kafkajs' 10 ms, one timer at a time", () => {
    const throttled = queueOf(RequestQueue);
    throttled.pending.push({});
    throttled.throttledUntil = Date.now() + 5_000;
    const [[, delay] = []] = timersSetBy(() => throttled.checkPendingRequests());
    expect(delay).toBeGreaterThan(4_000);
    expect(delay).toBeLessThanOrEqual(5_000);

    const waiting = queueOf(RequestQueue);
    const send = jest.fn();
    waiting.pending.push({ send, expectResponse: true });
    const timers = timersSetBy(() => waiting.scheduleCheckPendingRequests());
    expect(timers.map(([, ms]) => ms)).toEqual([10]);
    expect(timersSetBy(() => waiting.scheduleCheckPendingRequests())).toEqual([]);
    // The check sends the request, and with nothing left waiting sets no further timer.
    expect(timersSetBy(() => timers[0]![0]())).toEqual([]);
    expect(send).toHaveBeenCalledTimes(1);
    expect(waiting.throttleCheckTimeoutId).toBeNull();
  });

  it('leaves Node 24 and later nothing to warn of, where kafkajs printed a TimeoutNegativeWarning at the first response', () => {
    // Node emits process warnings on the process itself, which jest's sandbox does not show a test: a process of
    // this Node runs the queue, loading kafkajs alone or through Sluice's adapter (compiled as the workers' bootstrap does).
    const program = (throughSluice: boolean) => `
      const fs = require('node:fs');
      const ts = require('typescript');
      require.extensions['.ts'] = (module, filename) => module._compile(ts.transpileModule(fs.readFileSync(filename, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, filename);
      ${throughSluice ? `require(${JSON.stringify(require.resolve('./kafkajs'))});` : ''}
      const RequestQueue = require('kafkajs/src/network/requestQueue');
      const queue = new RequestQueue({ ...${JSON.stringify(queueOptions)}, logger: { debug() {} } });
      queue.checkPendingRequests();
      setTimeout(() => queue.destroy(), 20);`;
    const stderr = (throughSluice: boolean) => spawnSync(process.execPath, ['-e', program(throughSluice)], { cwd: path.join(__dirname, '../../..'), encoding: 'utf8' }).stderr;
    expect(stderr(true)).toBe('');
    const warns = Number(process.versions.node.split('.')[0]) >= 24;
    expect(stderr(false)).toMatch(warns ? /TimeoutNegativeWarning: -\d+ is a negative number/ : /^$/);
  });
});
