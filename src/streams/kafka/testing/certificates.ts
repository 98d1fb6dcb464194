/**
 * Throw-away TLS material for tests: a CA, a broker certificate for loopback and a client certificate signed by it,
 * and a second CA that signed nothing the broker shows (an "unknown CA"). Keys come from Node's crypto (native, fast);
 * node-forge (a devDependency) writes the X.509 certificates, which Node's crypto cannot.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface KeyAndChain {
  /** PEM: the certificate, then its CA's. */
  readonly chain: string;
  /** PEM, PKCS#8; encrypted with `keyPassword` when there is one. */
  readonly key: string;
  readonly keyPassword?: string;
}

export interface TestCertificates {
  /** PEM of the CA that signed the broker's and the client's certificates. */
  readonly ca: string;
  readonly broker: KeyAndChain;
  readonly client: KeyAndChain;
  /** PEM of a CA that signed neither. */
  readonly unknownCa: string;
}

interface Issued {
  readonly certificate: forge.pki.Certificate;
  readonly keyPem: string;
}

function rsaKey(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

function issue(commonName: string, issuer: Issued | undefined, options: { ca: boolean; hosts?: readonly string[] }): Issued {
  const { privatePem, publicPem } = rsaKey();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicPem);
  // Positive: the first byte's high bit clear.
  certificate.serialNumber = `01${randomBytes(8).toString('hex')}`;
  certificate.validity.notBefore = new Date(Date.now() - 60 * 60 * 1000);
  certificate.validity.notAfter = new Date(Date.now() + 7 * 24 * 60 * 60 * 1000);
  const subject = [{ name: 'commonName', value: commonName }];
  certificate.setSubject(subject);
  certificate.setIssuer(issuer === undefined ? subject : issuer.certificate.subject.attributes);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: options.ca, critical: true },
    options.ca
      ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true }
      : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    ...(options.ca ? [] : [{ name: 'extKeyUsage', serverAuth: true, clientAuth: true }]),
    ...(options.hosts === undefined
      ? []
      : [{ name: 'subjectAltName', altNames: options.hosts.map((host) => (/^[\d.]+$/.test(host) ? { type: 7, ip: host } : { type: 2, value: host })) }]),
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(forge.pki.privateKeyFromPem(issuer?.keyPem ?? privatePem), forge.md.sha256.create());
  return { certificate, keyPem: privatePem };
}

const pem = (issued: Issued): string => forge.pki.certificateToPem(issued.certificate);

/** Certificates for a broker reached at `hosts` (names or IPv4 addresses), and a client whose key is encrypted with `clientKeyPassword`. */
export function makeTestCertificates(hosts: readonly string[], clientKeyPassword: string): TestCertificates {
  const ca = issue('Sluice test CA', undefined, { ca: true });
  const broker = issue('Sluice test broker', ca, { ca: false, hosts });
  const client = issue('sluice-client', ca, { ca: false });
  const encryptedClientKey = createPrivateKey(client.keyPem)
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: clientKeyPassword })
    .toString();
  return {
    ca: pem(ca),
    broker: { chain: pem(broker) + pem(ca), key: broker.keyPem },
    client: { chain: pem(client) + pem(ca), key: encryptedClientKey, keyPassword: clientKeyPassword },
    unknownCa: pem(issue('Some other CA', undefined, { ca: true })),
  };
}
