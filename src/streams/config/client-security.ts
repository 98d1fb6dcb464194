/**
 * Kafka's security settings (CommonClientConfigs, SaslConfigs, SslConfigs) as one client sees them, resolved into
 * what the Kafka adapter needs. TLS material is PEM, inline or from files (read here, so that a wrong path or key
 * password is a ConfigException when the instance is created); SASL credentials come from `sasl.jaas.config` as
 * Java clients write it. Messages name keys and files, never a secret.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import type { SecureVersion } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { ConfigException, type SluiceError } from '../../errors';
import { hidingSecrets, type KafkaSecurity, type SaslSettings, type SecurityProtocol, type TlsSettings } from '../kafka';
import type { ClientSetting } from './config-lookup';
import { parseJaasConfig } from './jaas';

/** A key's value for one client, with the key as written (under the prefix that won). */
export type GivenSetting = ClientSetting<string>;

/** The value of `name` for the client being resolved: under its strongest prefix, or unprefixed, if given at all. */
export type SettingLookup = (name: string) => GivenSetting | undefined;

const PEM_TRUSTSTORE_KEYS = 'ssl.truststore.type=PEM with ssl.truststore.location (a PEM file of CA certificates) or ssl.truststore.certificates (the certificates as PEM text)';
const PEM_KEYSTORE_KEYS =
  'ssl.keystore.type=PEM with ssl.keystore.location (a PEM file holding the private key and the certificate chain) or ssl.keystore.certificate.chain + ssl.keystore.key (PEM text), plus ssl.key.password when the key is encrypted';

export function resolveClientSecurity(lookup: SettingLookup): KafkaSecurity {
  const protocol = (lookup('security.protocol')?.value ?? 'PLAINTEXT').toUpperCase() as SecurityProtocol;
  const withTls = protocol === 'SSL' || protocol === 'SASL_SSL';
  const withSasl = protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL';
  return hidingSecrets({
    protocol,
    ...(withTls ? { tls: resolveTls(lookup) } : {}),
    ...(withSasl ? { sasl: resolveSasl(lookup) } : {}),
  });
}

function resolveSasl(lookup: SettingLookup): SaslSettings {
  const given = lookup('sasl.mechanism');
  const key = given?.key ?? 'sasl.mechanism';
  const mechanism = (given?.value ?? 'GSSAPI').toUpperCase();
  switch (mechanism) {
    case 'PLAIN':
    case 'SCRAM-SHA-256':
    case 'SCRAM-SHA-512': {
      const jaas = lookup('sasl.jaas.config');
      if (jaas === undefined) {
        const module = mechanism === 'PLAIN' ? 'org.apache.kafka.common.security.plain.PlainLoginModule' : 'org.apache.kafka.common.security.scram.ScramLoginModule';
        throw new ConfigException(`SASL ${mechanism} needs 'sasl.jaas.config', as in Java: ${module} required username="..." password="...";`);
      }
      const { loginModule, options } = parseJaasConfig(jaas.key, jaas.value);
      if (!/\.(PlainLoginModule|ScramLoginModule)$/.test(loginModule)) {
        throw new ConfigException(`'${jaas.key}' names ${loginModule}, but SASL ${mechanism} takes PlainLoginModule or ScramLoginModule`);
      }
      for (const option of ['username', 'password']) {
        if (options[option] === undefined) throw new ConfigException(`'${jaas.key}' has no ${option}="..." option, which SASL ${mechanism} needs`);
      }
      return { mechanism, username: options.username!, password: options.password! };
    }
    case 'OAUTHBEARER':
      return resolveOAuthBearer(lookup);
    case 'GSSAPI':
      throw new ConfigException(
        `'${key}' is GSSAPI${given === undefined ? " (Kafka's default)" : ''}: Sluice does not do Kerberos; set '${key}' to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER`,
      );
    case 'AWS_MSK_IAM':
      // kafkajs has no AWS_MSK_IAM, and no AWS-maintained implementation of it exists for kafkajs; AWS's own
      // JavaScript signer makes tokens for MSK's IAM over SASL/OAUTHBEARER instead.
      throw new ConfigException(
        `'${key}' is AWS_MSK_IAM, which Sluice does not implement: Amazon MSK takes IAM credentials over SASL/OAUTHBEARER too; set '${key}' to OAUTHBEARER and give the instance a token provider made with AWS's aws-msk-iam-sasl-signer-js (docs/security.md, "Connecting to a secured Kafka")`,
      );
    default:
      throw new ConfigException(`'${key}' is ${given?.value}: Sluice takes PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER`);
  }
}

function resolveOAuthBearer(lookup: SettingLookup): SaslSettings {
  const extensions: Record<string, string> = {};
  const jaas = lookup('sasl.jaas.config');
  if (jaas !== undefined) {
    const { loginModule, options } = parseJaasConfig(jaas.key, jaas.value);
    if (!loginModule.endsWith('.OAuthBearerLoginModule')) {
      throw new ConfigException(`'${jaas.key}' names ${loginModule}, but SASL OAUTHBEARER takes OAuthBearerLoginModule`);
    }
    for (const [name, value] of Object.entries(options)) if (name.startsWith('extension_')) extensions[name.slice('extension_'.length)] = value;
  }
  const endpoint = lookup('sasl.oauthbearer.token.endpoint.url');
  if (endpoint === undefined) return { mechanism: 'OAUTHBEARER', extensions };
  if (!endpoint.value.startsWith('file:')) {
    throw new ConfigException(
      `'${endpoint.key}' must be a file: URL (a file holding the token, re-read when it changes): Sluice does not call HTTP token endpoints; for those, give the instance a token provider (StreamsInstance option oauthBearerTokenProvider)`,
    );
  }
  let tokenFile: string;
  try {
    tokenFile = fileURLToPath(endpoint.value.startsWith('file://') ? endpoint.value : `file://${endpoint.value.slice('file:'.length)}`);
  } catch (error) {
    throw new ConfigException(`'${endpoint.key}' is not a valid file: URL (${(error as Error).message})`);
  }
  return { mechanism: 'OAUTHBEARER', tokenFile, extensions };
}

function resolveTls(lookup: SettingLookup): TlsSettings {
  const ca = truststore(lookup);
  const keystore = clientKeystore(lookup);
  const algorithm = lookup('ssl.endpoint.identification.algorithm');
  const checkHostname = algorithm === undefined || algorithm.value.toLowerCase() === 'https';
  if (!checkHostname && algorithm!.value.trim() !== '') {
    throw new ConfigException(`'${algorithm!.key}' must be https (check the broker's host name) or empty (do not), got '${algorithm!.value}'`);
  }
  return { ...(ca === undefined ? {} : { ca }), ...keystore, checkHostname, ...protocolRange(lookup) };
}

/** A store's type; when defaulted, named under the prefix of the store setting that needs it (`consumer.ssl.keystore.type`). */
function typeOf(lookup: SettingLookup, name: string, store: GivenSetting): { key: string; type: string; defaulted: boolean } {
  const given = lookup(name);
  const prefix = store.key.slice(0, store.key.indexOf('ssl.'));
  return { key: given?.key ?? prefix + name, type: (given?.value ?? 'JKS').toUpperCase(), defaulted: given === undefined };
}

function notPem(what: { key: string; type: string; defaulted: boolean }, keys: string): SluiceError {
  return new ConfigException(
    `'${what.key}' is ${what.type}${what.defaulted ? " (Kafka's default)" : ''}, but Sluice reads TLS material as PEM only: set ${keys} (keytool and openssl convert ${what.type} stores to PEM)`,
  );
}

function truststore(lookup: SettingLookup): string | undefined {
  const location = lookup('ssl.truststore.location');
  const inline = lookup('ssl.truststore.certificates');
  if (location === undefined && inline === undefined) return undefined;
  const type = typeOf(lookup, 'ssl.truststore.type', (location ?? inline)!);
  if (type.type !== 'PEM') throw notPem(type, PEM_TRUSTSTORE_KEYS);
  if (location !== undefined && inline !== undefined) throw new ConfigException(`give '${location.key}' or '${inline.key}', not both`);
  const password = lookup('ssl.truststore.password');
  if (password !== undefined) throw new ConfigException(`'${password.key}' cannot be used with a PEM truststore, as in Kafka`);
  const source = location ?? inline!;
  const pem = location !== undefined ? readPemFile(location) : inline!.value;
  const certificates = pemBlocks(pem, 'CERTIFICATE');
  if (certificates.length === 0) throw new ConfigException(`'${source.key}' holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const certificate of certificates) parseCertificate(source.key, certificate);
  return certificates.join('\n');
}

function clientKeystore(lookup: SettingLookup): Pick<TlsSettings, 'certificateChain' | 'privateKey' | 'keyPassword'> {
  const location = lookup('ssl.keystore.location');
  const chain = lookup('ssl.keystore.certificate.chain');
  const key = lookup('ssl.keystore.key');
  if (location === undefined && chain === undefined && key === undefined) return {};
  const type = typeOf(lookup, 'ssl.keystore.type', (location ?? chain ?? key)!);
  if (type.type !== 'PEM') throw notPem(type, PEM_KEYSTORE_KEYS);
  if (location !== undefined && (chain !== undefined || key !== undefined)) {
    throw new ConfigException(`give '${location.key}' or '${(chain ?? key)!.key}', not both`);
  }
  if (location === undefined && (chain === undefined || key === undefined)) {
    throw new ConfigException(`'${(chain ?? key)!.key}' needs '${chain === undefined ? 'ssl.keystore.certificate.chain' : 'ssl.keystore.key'}' too`);
  }
  const storePassword = lookup('ssl.keystore.password');
  if (storePassword !== undefined) {
    throw new ConfigException(`'${storePassword.key}' cannot be used with a PEM keystore, as in Kafka: an encrypted key takes ssl.key.password`);
  }
  const keyPassword = lookup('ssl.key.password');
  const pem = location !== undefined ? readPemFile(location) : undefined;
  const keySource = location ?? key!;
  const privateKeys = pemBlocks(pem ?? key!.value, '(?:ENCRYPTED |RSA |EC )?PRIVATE KEY');
  if (privateKeys.length !== 1) throw new ConfigException(`'${keySource.key}' must hold one PEM private key (-----BEGIN PRIVATE KEY----- or ENCRYPTED PRIVATE KEY), found ${privateKeys.length}`);
  const chainSource = location ?? chain!;
  const certificates = pemBlocks(pem ?? chain!.value, 'CERTIFICATE');
  if (certificates.length === 0) throw new ConfigException(`'${chainSource.key}' holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const privateKey = decryptKey(keySource.key, privateKeys[0]!, keyPassword);
  const leaf = parseCertificate(chainSource.key, certificates[0]!);
  for (const certificate of certificates.slice(1)) parseCertificate(chainSource.key, certificate);
  if (!leaf.checkPrivateKey(privateKey)) throw new ConfigException(`the private key of '${keySource.key}' does not belong to the first certificate of '${chainSource.key}'`);
  return {
    certificateChain: certificates.join('\n'),
    privateKey: privateKeys[0]!,
    ...(keyPassword === undefined ? {} : { keyPassword: keyPassword.value }),
  };
}

function decryptKey(key: string, pem: string, password: GivenSetting | undefined): KeyObject {
  const encrypted = pem.includes('ENCRYPTED');
  if (encrypted && password === undefined) throw new ConfigException(`the private key of '${key}' is encrypted: give its password in 'ssl.key.password'`);
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(password === undefined ? {} : { passphrase: password.value }) });
  } catch {
    throw new ConfigException(
      encrypted ? `'${password!.key}' does not decrypt the private key of '${key}'` : `the private key of '${key}' is not a valid PEM private key`,
    );
  }
}

function parseCertificate(key: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ConfigException(`'${key}' holds a certificate that is not valid PEM`);
  }
}

function pemBlocks(text: string, label: string): string[] {
  const pattern = new RegExp(`-----BEGIN (${label})-----[\\s\\S]*?-----END \\1-----`, 'g');
  return [...text.matchAll(pattern)].map((match) => match[0]);
}

const JKS_MAGIC = 0xfeedfeed;

/** A PEM file's text; a JKS or PKCS12 store, or a file that cannot be read, is a clear error. */
function readPemFile(setting: GivenSetting): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(setting.value);
  } catch (error) {
    throw new ConfigException(`'${setting.key}': cannot read ${setting.value} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const keys = setting.key.includes('truststore') ? PEM_TRUSTSTORE_KEYS : PEM_KEYSTORE_KEYS;
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === JKS_MAGIC) throw new ConfigException(`'${setting.key}': ${setting.value} is a JKS store, not PEM: set ${keys}`);
  // DER (ASN.1 SEQUENCE): a PKCS12 store or a binary certificate.
  if (bytes.length > 0 && bytes[0] === 0x30) throw new ConfigException(`'${setting.key}': ${setting.value} is a PKCS12 or DER file, not PEM: set ${keys}`);
  const text = bytes.toString('utf8');
  if (!text.includes('-----BEGIN ')) throw new ConfigException(`'${setting.key}': ${setting.value} is not a PEM file (no -----BEGIN line)`);
  return text;
}

const TLS_VERSIONS: readonly SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

/** `ssl.enabled.protocols` as the lowest and highest TLS version Node may negotiate. */
function protocolRange(lookup: SettingLookup): Pick<TlsSettings, 'minVersion' | 'maxVersion'> {
  const given = lookup('ssl.enabled.protocols');
  if (given === undefined) return {};
  const versions = given.value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const unknown = versions.filter((v) => !TLS_VERSIONS.includes(v as SecureVersion));
  if (versions.length === 0 || unknown.length > 0) {
    throw new ConfigException(`'${given.key}' must list TLS versions among ${TLS_VERSIONS.join(', ')}, got '${given.value}'`);
  }
  const indexes = versions.map((v) => TLS_VERSIONS.indexOf(v as SecureVersion));
  return { minVersion: TLS_VERSIONS[Math.min(...indexes)]!, maxVersion: TLS_VERSIONS[Math.max(...indexes)]! };
}
