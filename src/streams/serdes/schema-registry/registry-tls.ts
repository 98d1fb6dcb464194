/**
 * TLS to the registry from Confluent's `schema.registry.ssl.*` settings (given here without that prefix). Node reads
 * PEM, and PKCS12 for the client's own keystore; a JKS store is refused with how to convert it. Messages name keys and
 * files, never a secret.
 */
import * as fs from 'node:fs';
import { Agent, type AgentOptions } from 'node:https';
import { ConfigException } from '../../../errors';

const PREFIX = 'schema.registry.ssl.';

function file(settings: Readonly<Record<string, string>>, name: string): Buffer {
  const location = settings[name]!;
  try {
    return fs.readFileSync(location);
  } catch (error) {
    throw new ConfigException(`'${PREFIX}${name}' names ${location}, which cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** A store's type, PEM unless given (Confluent's default is JKS, which Node cannot read: a JKS store is named). */
function storeType(settings: Readonly<Record<string, string>>, store: 'truststore' | 'keystore', allowed: readonly string[]): string {
  const type = (settings[`${store}.type`] ?? 'PEM').toUpperCase();
  if (!allowed.includes(type)) {
    throw new ConfigException(
      `'${PREFIX}${store}.type' is ${type}, but Sluice reads the registry's ${store} as ${allowed.join(' or ')} (keytool and openssl convert JKS stores)`,
    );
  }
  return type;
}

function trust(settings: Readonly<Record<string, string>>): Pick<AgentOptions, 'ca'> {
  const location = settings['truststore.location'];
  const inline = settings['truststore.certificates'];
  if (location === undefined && inline === undefined) return {};
  storeType(settings, 'truststore', ['PEM']);
  if (location !== undefined && inline !== undefined) throw new ConfigException(`give '${PREFIX}truststore.location' or '${PREFIX}truststore.certificates', not both`);
  const ca = location !== undefined ? file(settings, 'truststore.location').toString('utf8') : inline!;
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigException(`'${PREFIX}truststore.${location !== undefined ? 'location' : 'certificates'}' holds no PEM certificate`);
  return { ca };
}

function identity(settings: Readonly<Record<string, string>>): Pick<AgentOptions, 'cert' | 'key' | 'pfx' | 'passphrase'> {
  const location = settings['keystore.location'];
  const chain = settings['keystore.certificate.chain'];
  const key = settings['keystore.key'];
  if (location === undefined && chain === undefined && key === undefined) return {};
  const type = storeType(settings, 'keystore', ['PEM', 'PKCS12']);
  if (type === 'PKCS12') {
    if (location === undefined) throw new ConfigException(`a PKCS12 keystore for the registry is a file: '${PREFIX}keystore.location'`);
    const password = settings['keystore.password'];
    return { pfx: file(settings, 'keystore.location'), ...(password === undefined ? {} : { passphrase: password }) };
  }
  const passphrase = settings['key.password'];
  const withPassphrase = passphrase === undefined ? {} : { passphrase };
  if (location !== undefined) {
    if (chain !== undefined || key !== undefined) throw new ConfigException(`give '${PREFIX}keystore.location' or the PEM text keys, not both`);
    // One PEM file with the private key and the certificate chain, as Kafka's PEM keystore.
    const pem = file(settings, 'keystore.location');
    return { cert: pem, key: pem, ...withPassphrase };
  }
  if (chain === undefined || key === undefined) {
    throw new ConfigException(`'${PREFIX}keystore.${chain === undefined ? 'key' : 'certificate.chain'}' needs '${PREFIX}keystore.${chain === undefined ? 'certificate.chain' : 'key'}' too`);
  }
  return { cert: chain, key, ...withPassphrase };
}

/** The agent for an https registry, or undefined when no TLS setting is given (Node's trusted CAs then apply). */
export function registryAgent(settings: Readonly<Record<string, string>>): Agent | undefined {
  if (Object.keys(settings).length === 0) return undefined;
  const algorithm = settings['endpoint.identification.algorithm'];
  if (algorithm !== undefined && algorithm !== '' && algorithm.toLowerCase() !== 'https') {
    throw new ConfigException(`'${PREFIX}endpoint.identification.algorithm' must be https (check the registry's host name) or empty (do not), got '${algorithm}'`);
  }
  const checkHostname = algorithm === undefined || algorithm.toLowerCase() === 'https';
  return new Agent({
    ...trust(settings),
    ...identity(settings),
    ...(checkHostname ? {} : { checkServerIdentity: () => undefined }),
    keepAlive: true,
  });
}
