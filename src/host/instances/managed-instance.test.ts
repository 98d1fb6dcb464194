import pino from 'pino';
import type { InstanceStateChange } from '../../server/context';
import { StreamsBuilder } from '../../streams/kstream/streams-builder';
import { parseStreamsConfig } from '../../streams/runtime/streams-config';
import { fakeRuntimes } from '../testing/fake-runtime';
import { ManagedInstance } from './managed-instance';

function topology() {
  const builder = new StreamsBuilder();
  builder.stream('in').to('out');
  return builder.build();
}

function managed(startFailure?: Error) {
  const runtimes = fakeRuntimes({ startFailure });
  const instance = new ManagedInstance({
    topologyInfo: { name: 'T', version: '1', description: 'd', aliases: [] },
    topology: topology(),
    description: null,
    config: parseStreamsConfig({ 'application.id': 'app', 'bootstrap.servers': 'localhost:9092' }).values,
    createRuntime: runtimes.factory,
    logger: pino({ level: 'silent' }),
    closeTimeoutMs: 1000,
  });
  const states: string[] = [];
  instance.on('state', (change: InstanceStateChange) => states.push(`${change.previous}>${change.state}`));
  return { instance, runtimes, states };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ManagedInstance', () => {
  it('starts its runtime and follows its states; reachedRunning once RUNNING', async () => {
    const { instance, runtimes, states } = managed();
    expect(instance.state).toBe('CREATED');
    instance.start();
    await settle();
    expect(instance.state).toBe('REBALANCING');
    expect(instance.reachedRunning).toBe(false);
    runtimes.made[0]!.run();
    expect(instance.reachedRunning).toBe(true);
    expect(states).toEqual(['CREATED>REBALANCING', 'REBALANCING>RUNNING']);
    expect(instance.view).toBe(runtimes.made[0]);
  });

  it('stop closes the runtime and shows STOPPED; cleanup removes state; a restart makes a new runtime', async () => {
    const { instance, runtimes, states } = managed();
    instance.start();
    await settle();
    runtimes.made[0]!.run();
    await instance.stop({ cleanup: true, leaveGroup: false });
    expect(instance.state).toBe('STOPPED');
    expect(instance.view).toBeUndefined();
    expect(runtimes.made[0]!.cleanedUp).toBe(1);
    expect(runtimes.made[0]!.closes).toEqual([{ timeoutMs: 1000, leaveGroup: false }]);
    instance.restart();
    await settle();
    expect(runtimes.made).toHaveLength(2);
    expect(instance.view).toBe(runtimes.made[1]);
    expect(instance.state).toBe('REBALANCING');
    expect(instance.reachedRunning).toBe(false);
    expect(states).toEqual([
      'CREATED>REBALANCING',
      'REBALANCING>RUNNING',
      'RUNNING>PENDING_SHUTDOWN',
      'PENDING_SHUTDOWN>NOT_RUNNING',
      'NOT_RUNNING>STOPPED',
      'STOPPED>CREATED',
      'CREATED>REBALANCING',
    ]);
  });

  it('restart begins at once: the answer already sees PENDING_SHUTDOWN', async () => {
    const { instance, runtimes } = managed();
    instance.start();
    await settle();
    runtimes.made[0]!.run();
    instance.restart();
    expect(instance.state).toBe('PENDING_SHUTDOWN');
    await settle();
    expect(runtimes.made).toHaveLength(2);
  });

  it('a restart of a failed instance forgets the error; events of the old runtime no longer count', async () => {
    const { instance, runtimes, states } = managed();
    instance.start();
    await settle();
    runtimes.made[0]!.fail(new Error('boom'));
    expect(instance.state).toBe('ERROR');
    expect(instance.lastError?.message).toBe('boom');
    instance.restart();
    await settle();
    expect(instance.lastError).toBeUndefined();
    expect(runtimes.made[0]!.listenerCount('state')).toBe(0);
    expect(states.at(-2)).toBe('ERROR>CREATED');
  });

  it('a stop with leaveGroup closes the runtime with it (static members leave the group)', async () => {
    const { instance, runtimes } = managed();
    instance.start();
    await settle();
    await instance.stop({ cleanup: false, leaveGroup: true });
    expect(runtimes.made[0]!.closes).toEqual([{ timeoutMs: 1000, leaveGroup: true }]);
    expect(instance.state).toBe('STOPPED');
  });

  it('lifecycle actions run one after the other', async () => {
    const { instance, runtimes } = managed();
    instance.start();
    await settle();
    instance.restart();
    const stopped = instance.stop({ cleanup: false, leaveGroup: false });
    await stopped;
    expect(runtimes.made).toHaveLength(2);
    expect(instance.state).toBe('STOPPED');
  });

  it('a start that fails keeps the error', async () => {
    const { instance } = managed(new Error('no broker'));
    instance.start();
    await settle();
    expect(instance.lastError?.message).toBe('no broker');
  });
});
