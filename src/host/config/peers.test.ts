import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeTestCertificates } from '../../streams/kafka/testing/certificates';
import type { ApiTokenSpec } from '../../server/auth/api-tokens';
import type { UserSpec } from '../../server/auth/users';
import { loadHostConfig } from './host-config';
import { checkPeerExposure, loadPeerSecurity, peerExposureNotice, type PeersConfig } from './peers';

const SECRET = 'peer-secret-0123456789';

describe('checkPeerExposure', () => {
  const server = (host: string, extra: { users?: Record<string, UserSpec>; tokens?: ApiTokenSpec[]; allowUnauthenticated?: boolean } = {}) => ({
    host,
    allowUnauthenticated: extra.allowUnauthenticated ?? false,
    ...(extra.users ? { users: extra.users } : {}),
    ...(extra.tokens ? { tokens: extra.tokens } : {}),
  });
  // Only whether the API authenticates counts here, not the credentials themselves.
  const admin: UserSpec = { password: 'scrypt$32768$8$1$c2FsdA$aGFzaA', role: 'operator' };
  const tls = { ca: '/ca.pem', certificate: '/node.pem', key: '/node.key' };

  it('lets a node without any security run on loopback, and says nothing about it', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      expect(() => checkPeerExposure({ server: server(host) })).not.toThrow();
      expect(peerExposureNotice({ server: server(host) })).toBeUndefined();
    }
  });

  it('refuses another host whose API takes only API tokens, and no peer authentication', () => {
    const tokens: ApiTokenSpec[] = [{ name: 'ci', hash: 'sha256$aGFzaA', role: 'viewer' }];
    expect(() => checkPeerExposure({ server: server('0.0.0.0', { tokens, allowUnauthenticated: true }) })).toThrow(/peer port/);
  });

  it('refuses another host with users but no peer authentication: the peer port would bypass them', () => {
    expect(() => checkPeerExposure({ server: server('0.0.0.0', { users: { admin } }) })).toThrow(
      /server.host '0.0.0.0' lets other machines reach the gRPC peer port.*set peers.secret .* and\/or peers.tls/,
    );
    expect(() => checkPeerExposure({ server: server('0.0.0.0', { users: { admin }, allowUnauthenticated: true }) })).toThrow(/peer port/);
    expect(() => checkPeerExposure({ server: server('10.0.0.5') })).toThrow(/peer port/);
  });

  it('accepts another host with a secret or TLS; warns when the secret travels in clear', () => {
    const users = { admin };
    expect(() => checkPeerExposure({ server: server('0.0.0.0', { users }), peers: { secret: SECRET } })).not.toThrow();
    expect(() => checkPeerExposure({ server: server('0.0.0.0', { users }), peers: { tls } })).not.toThrow();
    expect(peerExposureNotice({ server: server('0.0.0.0', { users }), peers: { secret: SECRET } })).toMatch(/not encrypted/);
    expect(peerExposureNotice({ server: server('0.0.0.0', { users }), peers: { tls, secret: SECRET } })).toBeUndefined();
  });

  it('follows an API left open on purpose (no users, allowUnauthenticated), and warns', () => {
    const open = server('0.0.0.0', { allowUnauthenticated: true });
    expect(() => checkPeerExposure({ server: open })).not.toThrow();
    expect(peerExposureNotice({ server: open })).toMatch(/answers any caller/);
  });
});

describe('peers in the configuration file', () => {
  const certificates = makeTestCertificates(['127.0.0.1'], 'key-password');
  const other = makeTestCertificates(['127.0.0.1'], 'unused');
  let dir: string;
  const write = (name: string, content: string) => {
    fs.writeFileSync(path.join(dir, name), content);
    return name;
  };
  const load = (peers: unknown, env: NodeJS.ProcessEnv = {}) => {
    const file = path.join(dir, 'sluice.json');
    fs.writeFileSync(file, JSON.stringify({ streams: { 'bootstrap.servers': 'localhost:9092' }, peers }));
    return loadHostConfig({ config: file }, env);
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-peers-'));
    write('ca.pem', certificates.ca);
    write('node.pem', certificates.broker.chain);
    write('node.key', certificates.broker.key);
    write('other.key', other.broker.key);
    write('encrypted.key', certificates.client.key);
    write('secret', `${SECRET}\n`);
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads TLS files relative to the configuration file, and the secret through a reference', () => {
    const config = load({ secret: '${file:secret}', tls: { ca: 'ca.pem', certificate: 'node.pem', key: 'node.key' } });
    expect(config.peers).toEqual({ secret: SECRET, tls: { ca: path.join(dir, 'ca.pem'), certificate: path.join(dir, 'node.pem'), key: path.join(dir, 'node.key') } });
    const security = loadPeerSecurity(config.peers);
    expect(security.secret).toBe(SECRET);
    expect(security.tls?.certificate.toString()).toBe(certificates.broker.chain);
    expect(load({ secret: '${env:PEER_SECRET}' }, { PEER_SECRET: SECRET }).peers).toEqual({ secret: SECRET });
    expect(load(undefined).peers).toEqual({});
  });

  it('refuses a short secret, an incomplete tls section and unknown keys, naming the key', () => {
    expect(() => load({ secret: 'short' })).toThrow("'peers.secret' must NOT have fewer than 16 characters");
    expect(() => load({ tls: { ca: 'ca.pem', certificate: 'node.pem' } })).toThrow("missing key 'peers.tls.key'");
    expect(() => load({ token: SECRET })).toThrow("unknown key 'peers.token'");
  });

  it('refuses TLS files that are missing, not PEM, encrypted or not of the certificate, naming the file and never its content', () => {
    const security = (tls: PeersConfig['tls']) => () => loadPeerSecurity({ tls: { ca: 'ca.pem', certificate: 'node.pem', key: 'node.key', ...tls } });
    const at = (name: string) => path.join(dir, name);
    expect(security({ ca: at('none.pem'), certificate: at('node.pem'), key: at('node.key') })).toThrow(`'peers.tls.ca' names the file ${at('none.pem')}, which cannot be read (ENOENT)`);
    expect(security({ ca: at('secret'), certificate: at('node.pem'), key: at('node.key') })).toThrow(`'peers.tls.ca' (${at('secret')}) does not hold a PEM certificate`);
    expect(security({ ca: at('ca.pem'), certificate: at('node.key'), key: at('node.key') })).toThrow(`'peers.tls.certificate' (${at('node.key')}) does not hold a PEM certificate`);
    expect(security({ ca: at('ca.pem'), certificate: at('node.pem'), key: at('encrypted.key') })).toThrow(`'peers.tls.key' (${at('encrypted.key')}) does not hold an unencrypted PEM private key`);
    expect(security({ ca: at('ca.pem'), certificate: at('node.pem'), key: at('other.key') })).toThrow(`'peers.tls.key' (${at('other.key')}) is not the key of the certificate ${at('node.pem')}`);
    try {
      security({ ca: at('ca.pem'), certificate: at('node.pem'), key: at('other.key') })();
    } catch (error) {
      expect((error as Error).message).not.toContain('PRIVATE KEY');
    }
  });
});
