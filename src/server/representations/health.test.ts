import type { InstanceState, LocalInstance } from '../context';
import { aggregateHealth, healthReport, instanceHealth, isLive, isReady } from './health';

function instance(id: string, state: InstanceState, extra: Partial<LocalInstance> = {}): LocalInstance {
  return { id, state, lastError: undefined, reachedRunning: false, ...extra } as LocalInstance;
}

describe('health', () => {
  it.each([
    ['RUNNING', undefined, 'UP'],
    ['REBALANCING', undefined, 'UP'],
    ['ERROR', new Error('x'), 'DOWN'],
    ['PENDING_ERROR', new Error('x'), 'DOWN'],
    ['NOT_RUNNING', new Error('x'), 'DOWN'],
    ['NOT_RUNNING', undefined, 'UNKNOWN'],
    ['CREATED', undefined, 'UNKNOWN'],
    ['STOPPED', undefined, 'UNKNOWN'],
    ['PENDING_SHUTDOWN', undefined, 'UNKNOWN'],
  ] as const)('%s (error: %p) is %s', (state, lastError, status) => {
    expect(instanceHealth(instance('a', state, { lastError }))).toBe(status);
  });

  it('aggregates DOWN > UP > UNKNOWN; nothing at all is UNKNOWN', () => {
    expect(aggregateHealth(['UP', 'DOWN', 'UNKNOWN'])).toBe('DOWN');
    expect(aggregateHealth(['UNKNOWN', 'UP'])).toBe('UP');
    expect(aggregateHealth(['UNKNOWN'])).toBe('UNKNOWN');
    expect(aggregateHealth([])).toBe('UNKNOWN');
    expect(healthReport([]).status).toBe('UNKNOWN');
  });

  it('liveness fails only on ERROR; readiness needs RUNNING reached, stopped instances aside', () => {
    expect(isLive([instance('a', 'PENDING_ERROR'), instance('b', 'NOT_RUNNING')])).toBe(true);
    expect(isLive([instance('a', 'RUNNING'), instance('b', 'ERROR')])).toBe(false);
    expect(isReady([instance('a', 'REBALANCING', { reachedRunning: true }), instance('b', 'STOPPED')])).toBe(true);
    expect(isReady([instance('a', 'REBALANCING'), instance('b', 'RUNNING', { reachedRunning: true })])).toBe(false);
  });
});
