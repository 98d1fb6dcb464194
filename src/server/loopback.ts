import * as net from 'node:net';

/** `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped): addresses only this machine reaches. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || bare.startsWith('::ffff:127.');
  return false;
}
