/**
 * Does a Docker engine answer? A quick probe of the places Testcontainers looks (DOCKER_HOST,
 * `docker.host` in ~/.testcontainers.properties, the usual rootful and rootless sockets), so that machines
 * without an engine fall through to the next way of getting a broker in well under a second.
 */
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

type Endpoint = { socketPath: string } | { host: string; port: number };

function configuredDockerHost(): string | undefined {
  if (process.env.DOCKER_HOST) return process.env.DOCKER_HOST;
  try {
    const properties = readFileSync(join(homedir(), '.testcontainers.properties'), 'utf8');
    return /^\s*docker\.host\s*=\s*(\S+)/m.exec(properties)?.[1];
  } catch {
    return undefined;
  }
}

function endpoints(): Endpoint[] {
  const configured = configuredDockerHost();
  if (configured !== undefined) {
    let url: URL;
    try {
      url = new URL(configured);
    } catch {
      return [];
    }
    if (url.protocol === 'unix:') return [{ socketPath: url.pathname }];
    if (url.protocol === 'tcp:') return [{ host: url.hostname, port: Number(url.port || 2375) }];
    return [];
  }
  const home = homedir();
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  return [
    '/var/run/docker.sock',
    ...(runtimeDir ? [join(runtimeDir, 'docker.sock')] : []),
    join(home, '.docker', 'run', 'docker.sock'),
    join(home, '.docker', 'desktop', 'docker.sock'),
    `/run/user/${userInfo().uid}/docker.sock`,
  ]
    .filter((socketPath) => existsSync(socketPath))
    .map((socketPath) => ({ socketPath }));
}

/** A socket answers `GET /_ping` with 200; a TCP host (maybe TLS) counts when it accepts a connection. */
function answers(endpoint: Endpoint, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if ('socketPath' in endpoint) {
      const ping = request({ socketPath: endpoint.socketPath, path: '/_ping', timeout: timeoutMs }, (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      });
      ping.on('timeout', () => ping.destroy());
      ping.on('error', () => resolve(false));
      ping.on('close', () => resolve(false));
      ping.end();
    } else {
      const socket = connect({ host: endpoint.host, port: endpoint.port, timeout: timeoutMs });
      socket.on('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('timeout', () => socket.destroy());
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    }
  });
}

export async function dockerEngineAnswers(timeoutMs = 1000): Promise<boolean> {
  const results = await Promise.all(endpoints().map((endpoint) => answers(endpoint, timeoutMs)));
  return results.includes(true);
}
