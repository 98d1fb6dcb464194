import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inspect } from 'node:util';
import { makeTestCertificates } from '../kafka/testing/certificates';
import { resolveClientSecurity, type GivenSetting } from './client-security';

const certificates = makeTestCertificates(['127.0.0.1'], 'key-pass-1');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-security-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const target = path.join(dir, name);
  fs.writeFileSync(target, content);
  return target;
}

/** A lookup over unprefixed keys, as one client sees them. */
function resolve(settings: Record<string, string>) {
  return resolveClientSecurity((name): GivenSetting | undefined => (settings[name] === undefined ? undefined : { key: name, value: settings[name]! }));
}

const PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";';

describe('resolveClientSecurity', () => {
  it('is PLAINTEXT by default, and ignores TLS and SASL keys there, as Kafka does', () => {
    expect(resolve({})).toEqual({ protocol: 'PLAINTEXT' });
    expect(resolve({ 'sasl.mechanism': 'PLAIN', 'ssl.truststore.location': '/nowhere' })).toEqual({ protocol: 'PLAINTEXT' });
  });

  it('reads PLAIN and SCRAM credentials from sasl.jaas.config, in any case of protocol and mechanism', () => {
    expect(resolve({ 'security.protocol': 'sasl_plaintext', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': PLAIN_JAAS })).toEqual({
      protocol: 'SASL_PLAINTEXT',
      sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' },
    });
    const scram = resolve({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'scram-sha-512',
      'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="b\\"ob";',
    });
    expect(scram.sasl).toEqual({ mechanism: 'SCRAM-SHA-512', username: 'bob', password: 'b"ob' });
    expect(scram.tls).toEqual({ checkHostname: true });
  });

  it('refuses SASL without a usable mechanism or credentials, naming the key', () => {
    const sasl = { 'security.protocol': 'SASL_SSL' };
    expect(() => resolve(sasl)).toThrow("'sasl.mechanism' is GSSAPI (Kafka's default): Sluice does not do Kerberos");
    expect(() => resolve({ ...sasl, 'sasl.mechanism': 'PLAIN' })).toThrow("SASL PLAIN needs 'sasl.jaas.config'");
    expect(() => resolve({ ...sasl, 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="a";' })).toThrow(
      'has no password="..." option',
    );
    expect(() => resolve({ ...sasl, 'sasl.mechanism': 'SCRAM-SHA-256', 'sasl.jaas.config': 'com.sun.security.auth.module.Krb5LoginModule required;' })).toThrow(
      'takes PlainLoginModule or ScramLoginModule',
    );
    expect(() => resolve({ ...sasl, 'sasl.mechanism': 'AWS_MSK_IAM' })).toThrow('set \'sasl.mechanism\' to OAUTHBEARER');
    expect(() => resolve({ ...sasl, 'sasl.mechanism': 'DIGEST-MD5' })).toThrow('Sluice takes PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER');
  });

  it('takes OAUTHBEARER with a file: token endpoint and SASL extensions, refusing an HTTP endpoint', () => {
    const oauth = { 'security.protocol': 'SASL_SSL', 'sasl.mechanism': 'OAUTHBEARER' };
    expect(resolve(oauth).sasl).toEqual({ mechanism: 'OAUTHBEARER', extensions: {} });
    expect(
      resolve({
        ...oauth,
        'sasl.oauthbearer.token.endpoint.url': 'file:///var/run/token',
        'sasl.jaas.config': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required extension_logicalCluster="lkc-1";',
      }).sasl,
    ).toEqual({ mechanism: 'OAUTHBEARER', tokenFile: '/var/run/token', extensions: { logicalCluster: 'lkc-1' } });
    expect(resolve({ ...oauth, 'sasl.oauthbearer.token.endpoint.url': 'file:/var/run/token' }).sasl).toMatchObject({ tokenFile: '/var/run/token' });
    expect(() => resolve({ ...oauth, 'sasl.oauthbearer.token.endpoint.url': 'https://idp/token' })).toThrow('must be a file: URL');
    expect(() => resolve({ ...oauth, 'sasl.jaas.config': PLAIN_JAAS })).toThrow('SASL OAUTHBEARER takes OAuthBearerLoginModule');
  });

  it('reads a PEM truststore from a file or inline, and turns host-name checks off when asked', () => {
    const fromFile = resolve({ 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': file('ca.pem', certificates.ca) });
    expect(fromFile.tls).toEqual({ ca: certificates.ca.trim(), checkHostname: true });
    const inline = resolve({ 'security.protocol': 'SSL', 'ssl.truststore.type': 'pem', 'ssl.truststore.certificates': certificates.ca, 'ssl.endpoint.identification.algorithm': '' });
    expect(inline.tls).toEqual({ ca: certificates.ca.trim(), checkHostname: false });
  });

  it('reads a PEM keystore for mutual TLS, from one file or from the chain and key, with the key password', () => {
    const { chain, key, keyPassword } = certificates.client;
    const ssl = { 'security.protocol': 'SSL', 'ssl.keystore.type': 'PEM', 'ssl.key.password': keyPassword! };
    const fromFile = resolve({ ...ssl, 'ssl.keystore.location': file('client.pem', key + chain) });
    expect(fromFile.tls).toMatchObject({ privateKey: key.trim(), keyPassword, checkHostname: true });
    expect(fromFile.tls!.certificateChain).toContain('BEGIN CERTIFICATE');
    const inline = resolve({ ...ssl, 'ssl.keystore.certificate.chain': chain, 'ssl.keystore.key': key });
    expect(inline.tls).toEqual(fromFile.tls);
  });

  it('refuses JKS and PKCS12 stores with the PEM keys to use instead', () => {
    const jks = file('client.jks', Buffer.from([0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2]));
    expect(() => resolve({ 'security.protocol': 'SSL', 'ssl.keystore.location': jks })).toThrow(
      "'ssl.keystore.type' is JKS (Kafka's default), but Sluice reads TLS material as PEM only: set ssl.keystore.type=PEM with ssl.keystore.location",
    );
    expect(() => resolve({ 'security.protocol': 'SSL', 'ssl.truststore.type': 'PKCS12', 'ssl.truststore.location': '/x.p12' })).toThrow(
      "'ssl.truststore.type' is PKCS12, but Sluice reads TLS material as PEM only: set ssl.truststore.type=PEM with ssl.truststore.location",
    );
    expect(() => resolve({ 'security.protocol': 'SSL', 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': jks })).toThrow(
      `'ssl.keystore.location': ${jks} is a JKS store, not PEM: set ssl.keystore.type=PEM`,
    );
    const p12 = file('trust.p12', Buffer.from([0x30, 0x82, 0x01, 0x00]));
    expect(() => resolve({ 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': p12 })).toThrow('is a PKCS12 or DER file, not PEM');
  });

  it('refuses TLS material that cannot work, naming the key and never the secret', () => {
    const { chain, key } = certificates.client;
    const pem = { 'security.protocol': 'SSL', 'ssl.keystore.type': 'PEM' };
    const cases: [Record<string, string>, string][] = [
      [{ ...pem, 'ssl.keystore.key': key }, "'ssl.keystore.key' needs 'ssl.keystore.certificate.chain' too"],
      [{ ...pem, 'ssl.keystore.key': key, 'ssl.keystore.certificate.chain': chain }, "the private key of 'ssl.keystore.key' is encrypted: give its password in 'ssl.key.password'"],
      [{ ...pem, 'ssl.keystore.key': key, 'ssl.keystore.certificate.chain': chain, 'ssl.key.password': 'wrong-pass-9' }, "'ssl.key.password' does not decrypt the private key of 'ssl.keystore.key'"],
      [
        { ...pem, 'ssl.keystore.key': certificates.broker.key, 'ssl.keystore.certificate.chain': chain },
        "the private key of 'ssl.keystore.key' does not belong to the first certificate of 'ssl.keystore.certificate.chain'",
      ],
      [{ ...pem, 'ssl.keystore.location': '/no/such/file.pem' }, "'ssl.keystore.location': cannot read /no/such/file.pem (ENOENT)"],
      [{ ...pem, 'ssl.keystore.location': file('k.pem', key + chain), 'ssl.key.password': 'key-pass-1', 'ssl.keystore.password': 'store-pass-7' }, "'ssl.keystore.password' cannot be used with a PEM keystore"],
      [{ 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.certificates': 'not a certificate' }, 'holds no PEM certificate'],
      [{ 'security.protocol': 'SSL', 'ssl.endpoint.identification.algorithm': 'ldap' }, "must be https (check the broker's host name) or empty"],
      [{ 'security.protocol': 'SSL', 'ssl.enabled.protocols': 'TLSv1.3,SSLv3' }, 'must list TLS versions among TLSv1, TLSv1.1, TLSv1.2, TLSv1.3'],
    ];
    for (const [settings, message] of cases) {
      let error: Error | undefined;
      try {
        resolve(settings);
      } catch (e) {
        error = e as Error;
      }
      expect(error?.name).toBe('ConfigException');
      expect(error?.message).toContain(message);
      for (const secret of ['wrong-pass-9', 'store-pass-7', 'key-pass-1', 'PRIVATE KEY']) expect(error?.message).not.toContain(secret);
    }
  });

  it('maps ssl.enabled.protocols to the lowest and highest version', () => {
    expect(resolve({ 'security.protocol': 'SSL', 'ssl.enabled.protocols': 'TLSv1.3' }).tls).toMatchObject({ minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
  });

  it('keeps its secrets out of JSON and util.inspect', () => {
    const { chain, key, keyPassword } = certificates.client;
    const security = resolve({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'PLAIN',
      'sasl.jaas.config': PLAIN_JAAS,
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.certificate.chain': chain,
      'ssl.keystore.key': key,
      'ssl.key.password': keyPassword!,
    });
    for (const shown of [JSON.stringify({ security }), inspect({ security }, { depth: 10 })]) {
      expect(shown).toContain('alice');
      for (const secret of ['alice-secret', keyPassword!, 'PRIVATE KEY']) expect(shown).not.toContain(secret);
    }
  });
});
