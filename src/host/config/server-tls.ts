/**
 * `server.tls`: HTTPS for the management API. Each value is a PEM file (relative to the configuration file's
 * directory) or PEM text itself (as `${file:}` or `${env:}` give it); the key may be encrypted (`keyPassword`).
 * With `clientCa`, clients must present a certificate that CA signed (mutual TLS): the TLS handshake refuses others.
 * Everything is read and checked before anything listens; errors name the key and the file, never the content.
 */

import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigException } from '../../errors';
import type { HttpsOptions } from '../../server/app';

export interface ServerTlsConfig {
  certificate: string;
  key: string;
  keyPassword?: string;
  clientCa?: string;
}

const isPem = (value: string) => value.includes('-----BEGIN ');

export function resolveServerTlsPaths(tls: ServerTlsConfig, baseDir: string): ServerTlsConfig {
  const resolve = (value: string) => (isPem(value) ? value : path.resolve(baseDir, value));
  return {
    ...tls,
    certificate: resolve(tls.certificate),
    key: resolve(tls.key),
    ...(tls.clientCa === undefined ? {} : { clientCa: resolve(tls.clientCa) }),
  };
}

/** The PEM text and where it came from, for errors. */
function read(key: string, value: string): { pem: Buffer; source: string } {
  if (isPem(value)) return { pem: Buffer.from(value), source: `server.tls.${key}` };
  try {
    return { pem: fs.readFileSync(value), source: `server.tls.${key} (${value})` };
  } catch (error) {
    throw new ConfigException(`'server.tls.${key}' names the file ${value}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function parsed<T>(source: string, what: string, parse: () => T): T {
  try {
    return parse();
  } catch {
    throw new ConfigException(`${source} does not hold ${what}`);
  }
}

/** Reads and checks the material (each part parses; the key is the certificate's) into fastify's `https` options. */
export function loadServerTls(tls: ServerTlsConfig): HttpsOptions {
  const certificate = read('certificate', tls.certificate);
  const key = read('key', tls.key);
  const leaf = parsed(certificate.source, 'a PEM certificate', () => new X509Certificate(certificate.pem));
  const what = tls.keyPassword === undefined ? 'an unencrypted PEM private key' : 'a PEM private key that server.tls.keyPassword decrypts';
  const privateKey: KeyObject = parsed(key.source, what, () => createPrivateKey({ key: key.pem, passphrase: tls.keyPassword }));
  if (!leaf.checkPrivateKey(privateKey)) throw new ConfigException(`${key.source} is not the key of the certificate in ${certificate.source}`);
  const options: HttpsOptions = { cert: certificate.pem, key: key.pem, passphrase: tls.keyPassword };
  if (tls.clientCa === undefined) return options;
  const clientCa = read('clientCa', tls.clientCa);
  parsed(clientCa.source, 'a PEM certificate', () => new X509Certificate(clientCa.pem));
  return { ...options, ca: clientCa.pem, requestCert: true, rejectUnauthorized: true };
}
