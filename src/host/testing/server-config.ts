import type { HostConfig } from '../config/host-config';
import { DEFAULT_MAX_CONNECTIONS } from '../../server/connections';
import { DEFAULT_HTTP_TIMEOUTS } from '../../server/timeouts';

/** The server section of a node under test: loopback, ports chosen by the system, no users, default timeouts and cap. */
export function testServerConfig(overrides: Partial<HostConfig['server']> = {}): HostConfig['server'] {
  return {
    host: '127.0.0.1',
    port: 0,
    grpcPort: 0,
    headless: false,
    allowUnauthenticated: false,
    sse: { queueSize: 10, keepaliveMs: 15_000, metricsIntervalMs: 5000 },
    timeouts: DEFAULT_HTTP_TIMEOUTS,
    maxConnections: DEFAULT_MAX_CONNECTIONS,
    ...overrides,
  };
}
