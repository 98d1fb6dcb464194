/** The health report and the Kubernetes probes (compatibility file, section 4). */

import type { LocalInstance } from '../context';

export type HealthStatus = 'UP' | 'DOWN' | 'UNKNOWN';

/** RUNNING and REBALANCING are up; errors, and NOT_RUNNING after a failure, are down; anything else is unknown. */
export function instanceHealth(instance: LocalInstance): HealthStatus {
  switch (instance.state) {
    case 'RUNNING':
    case 'REBALANCING':
      return 'UP';
    case 'ERROR':
    case 'PENDING_ERROR':
      return 'DOWN';
    case 'NOT_RUNNING':
      return instance.lastError ? 'DOWN' : 'UNKNOWN';
    default:
      return 'UNKNOWN';
  }
}

const PRECEDENCE: readonly HealthStatus[] = ['DOWN', 'UP', 'UNKNOWN'];

/** DOWN > UP > UNKNOWN; no instance at all is UNKNOWN. */
export function aggregateHealth(statuses: readonly HealthStatus[]): HealthStatus {
  return PRECEDENCE.find((status) => statuses.includes(status)) ?? 'UNKNOWN';
}

export function healthReport(instances: readonly LocalInstance[]) {
  const details: Record<string, { status: HealthStatus; details: { state: string } }> = {};
  for (const instance of instances) details[instance.id] = { status: instanceHealth(instance), details: { state: instance.state } };
  const status = aggregateHealth(Object.values(details).map((d) => d.status));
  return { status, details: { applications: { name: 'applications', status, details } } };
}

/** Alive unless an instance is in ERROR: only then would a restart of the process help. */
export function isLive(instances: readonly LocalInstance[]): boolean {
  return !instances.some((instance) => instance.state === 'ERROR');
}

/** Ready once every instance has reached RUNNING since its last start; instances stopped through the API do not count. */
export function isReady(instances: readonly LocalInstance[]): boolean {
  return instances.every((instance) => instance.state === 'STOPPED' || instance.reachedRunning);
}
