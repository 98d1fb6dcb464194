/**
 * Peer security for test nodes on loopback: TLS material made by the test run (the Kafka security tests' helper) in
 * PEM files, a random cluster secret in a file, and the `peers` section that names them.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTestCertificates, type TestCertificates } from '../../../src/streams/kafka/testing/certificates';

export interface PeerSecurityFiles {
  /** The configuration's `peers` section: mutual TLS and the secret, read from its file through `${file:}`. */
  readonly peers: Record<string, unknown>;
  readonly secret: string;
  /** The nodes' certificate for 127.0.0.1 is the "broker" one: it carries both server and client use. */
  readonly certificates: TestCertificates;
}

export function writePeerSecurity(dir: string): PeerSecurityFiles {
  fs.mkdirSync(dir, { recursive: true });
  const certificates = makeTestCertificates(['127.0.0.1', 'localhost'], randomBytes(8).toString('hex'));
  const secret = `peer-${randomBytes(16).toString('hex')}`;
  const write = (name: string, content: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode: 0o600 });
    return file;
  };
  const tls = { ca: write('ca.pem', certificates.ca), certificate: write('node.pem', certificates.broker.chain), key: write('node.key', certificates.broker.key) };
  return { peers: { tls, secret: `\${file:${write('secret', `${secret}\n`)}}` }, secret, certificates };
}
