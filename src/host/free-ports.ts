import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Ports that are free on loopback right now: all held open together so that they differ. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** One port free on loopback right now. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}
