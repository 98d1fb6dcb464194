/**
 * The `peers` section: how nodes authenticate each other on the gRPC peer port, which answers any store's contents.
 * TLS material comes from PEM files (a mounted Secret); the cluster secret may come from `${file:}` or `${env:}`.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PeerSecurity } from '../../cluster';
import { ConfigException } from '../../errors';
import { hasAuthentication, isLoopback } from './exposure';
import type { HostConfig } from './host-config';

export interface PeersConfig {
  /** Shared by every node; at least 16 characters. */
  secret?: string;
  /** PEM files; the node's certificate serves both as server and as client certificate (mutual TLS). */
  tls?: { ca: string; certificate: string; key: string };
}

/** TLS file paths relative to the directory of the configuration file, as module paths are. */
export function resolvePeerPaths(given: PeersConfig | undefined, baseDir: string): PeersConfig {
  if (given?.tls === undefined) return { ...given };
  const { ca, certificate, key } = given.tls;
  return { ...given, tls: { ca: path.resolve(baseDir, ca), certificate: path.resolve(baseDir, certificate), key: path.resolve(baseDir, key) } };
}

/** The parts of the host configuration that decide. */
interface ExposureConfig {
  server: Pick<HostConfig['server'], 'host' | 'users' | 'tokens' | 'jwt' | 'allowUnauthenticated'>;
  peers?: PeersConfig;
}

const hasPeerAuthentication = (peers: PeersConfig) => peers.secret !== undefined || peers.tls !== undefined;

/**
 * Refuses, before anything listens, a peer port that other machines reach and that answers any caller, unless the
 * API is itself open on purpose (no users, `server.allowUnauthenticated`). With users, an open peer port would
 * hand every store to whoever the API refuses.
 */
export function checkPeerExposure({ server, peers = {} }: ExposureConfig): void {
  if (isLoopback(server.host) || hasPeerAuthentication(peers)) return;
  if (server.allowUnauthenticated && !hasAuthentication(server)) return;
  throw new ConfigException(
    `server.host '${server.host}' lets other machines reach the gRPC peer port, which answers the contents of every store, ` +
      'and no peer authentication is configured: set peers.secret (a cluster secret shared by every node) and/or peers.tls ' +
      '(ca, certificate, key: mutual TLS)',
  );
}

/** What the node says at start about its peer port, when that is worth saying. */
export function peerExposureNotice({ server, peers = {} }: ExposureConfig): string | undefined {
  if (isLoopback(server.host)) return undefined;
  if (!hasPeerAuthentication(peers)) {
    return 'The gRPC peer port answers any caller (no peers.secret, no peers.tls): whoever reaches it can read every store';
  }
  if (peers.tls === undefined) {
    return 'Peer calls are authenticated by the cluster secret but not encrypted (no peers.tls): the secret and the records travel in clear';
  }
  return undefined;
}

function readPem(key: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new ConfigException(`'${key}' names the file ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Parses what `read` gives, turning a failure into an error that names the key and the file, never the content. */
function parsed<T>(key: string, file: string, what: string, read: () => T): T {
  try {
    return read();
  } catch {
    throw new ConfigException(`'${key}' (${file}) does not hold ${what}`);
  }
}

/** Reads and checks the TLS files (each parses; the key is the certificate's) so that a mistake stops the start. */
export function loadPeerSecurity(peers: PeersConfig = {}): PeerSecurity {
  if (peers.tls === undefined) return { secret: peers.secret };
  const { ca: caFile, certificate: certificateFile, key: keyFile } = peers.tls;
  const ca = readPem('peers.tls.ca', caFile);
  const certificate = readPem('peers.tls.certificate', certificateFile);
  const key = readPem('peers.tls.key', keyFile);
  parsed('peers.tls.ca', caFile, 'a PEM certificate', () => new X509Certificate(ca));
  const leaf = parsed('peers.tls.certificate', certificateFile, 'a PEM certificate', () => new X509Certificate(certificate));
  const privateKey: KeyObject = parsed('peers.tls.key', keyFile, 'an unencrypted PEM private key', () => createPrivateKey(key));
  if (!leaf.checkPrivateKey(privateKey)) throw new ConfigException(`'peers.tls.key' (${keyFile}) is not the key of the certificate ${certificateFile}`);
  return { secret: peers.secret, tls: { ca, certificate, key } };
}
