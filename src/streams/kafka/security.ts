/**
 * How one client reaches Kafka securely, resolved from Kafka's configuration names (streams/config/client-security.ts),
 * and its translation into kafkajs' `ssl` and `sasl` options. kafkajs takes those per Kafka object, so a client
 * whose effective settings differ (`consumer.`, `main.consumer.`, `restore.consumer.`, `global.consumer.`,
 * `producer.`, `admin.` overrides) gets a Kafka object of its own (client.ts).
 */
import * as fs from 'node:fs/promises';
import * as tls from 'node:tls';
import { inspect } from 'node:util';
import type { SASLOptions } from 'kafkajs';
import { ConfigException, KafkaAuthenticationFailed } from '../../errors';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** TLS from PEM: the CAs to trust (default: Node's), and the client's key and chain for mutual TLS. */
export interface TlsSettings {
  readonly ca?: string;
  readonly certificateChain?: string;
  readonly privateKey?: string;
  readonly keyPassword?: string;
  /** `ssl.endpoint.identification.algorithm`: https (the default) checks the broker's name; empty does not. */
  readonly checkHostname: boolean;
  readonly minVersion?: tls.SecureVersion;
  readonly maxVersion?: tls.SecureVersion;
}

export type SaslSettings =
  | { readonly mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; readonly username: string; readonly password: string }
  | {
      readonly mechanism: 'OAUTHBEARER';
      /** A `file:` token endpoint (Kafka's `sasl.oauthbearer.token.endpoint.url`): the token, re-read when the file changes. */
      readonly tokenFile?: string;
      /** SASL extensions, from the login module's `extension_<name>` options. */
      readonly extensions: Readonly<Record<string, string>>;
    };

export interface KafkaSecurity {
  readonly protocol: SecurityProtocol;
  /** Present for SSL and SASL_SSL. */
  readonly tls?: TlsSettings;
  /** Present for SASL_PLAINTEXT and SASL_SSL. */
  readonly sasl?: SaslSettings;
}

export const PLAINTEXT: KafkaSecurity = { protocol: 'PLAINTEXT' };

/** An OAuth bearer token as kafkajs sends it: the token and optional SASL extensions. */
export interface OAuthBearerToken {
  value: string;
  extensions?: Record<string, string>;
}

/** Gives the token for each SASL/OAUTHBEARER authentication; it renews and caches the token itself. */
export type OAuthBearerTokenProvider = () => Promise<OAuthBearerToken>;

/** What a KafkaSecurity says, without its secrets. */
export function describeSecurity(security: KafkaSecurity): Record<string, unknown> {
  const { tls: t, sasl } = security;
  return {
    protocol: security.protocol,
    ...(sasl === undefined ? {} : { saslMechanism: sasl.mechanism, ...('username' in sasl ? { username: sasl.username } : {}) }),
    ...(t === undefined ? {} : { tls: { customCa: t.ca !== undefined, clientCertificate: t.certificateChain !== undefined, checkHostname: t.checkHostname } }),
  };
}

/**
 * The security settings, with their secrets only in what JSON.stringify and util.inspect never reach: a
 * configuration logged whole shows no password or private key.
 */
export function hidingSecrets(security: KafkaSecurity): KafkaSecurity {
  const description = describeSecurity(security);
  Object.defineProperty(security, 'toJSON', { value: () => description, enumerable: false });
  Object.defineProperty(security, inspect.custom, { value: () => description, enumerable: false });
  return security;
}

/** Equal for settings that connect the same way (secrets included): clients with equal identities share a Kafka object. */
export function securityIdentity(security: KafkaSecurity): string {
  const { tls: t, sasl } = security;
  return JSON.stringify([
    security.protocol,
    t === undefined ? null : [t.ca, t.certificateChain, t.privateKey, t.keyPassword, t.checkHostname, t.minVersion, t.maxVersion],
    sasl === undefined ? null : 'username' in sasl ? [sasl.mechanism, sasl.username, sasl.password] : [sasl.mechanism, sasl.tokenFile, sasl.extensions],
  ]);
}

/** Node's TLS options for a KafkaSecurity with TLS; kafkajs passes them to `tls.connect`. */
export function tlsOptions(settings: TlsSettings): tls.ConnectionOptions {
  return {
    ...(settings.ca === undefined ? {} : { ca: settings.ca }),
    ...(settings.certificateChain === undefined ? {} : { cert: settings.certificateChain }),
    ...(settings.privateKey === undefined ? {} : { key: settings.privateKey }),
    ...(settings.keyPassword === undefined ? {} : { passphrase: settings.keyPassword }),
    ...(settings.minVersion === undefined ? {} : { minVersion: settings.minVersion }),
    ...(settings.maxVersion === undefined ? {} : { maxVersion: settings.maxVersion }),
    rejectUnauthorized: true,
    // The chain is still verified; only the broker's name is not checked against its certificate.
    ...(settings.checkHostname ? {} : { checkServerIdentity: () => undefined }),
  };
}

/**
 * A token provider that reads a file, again whenever it changes (a sidecar or a mounted Secret renews it): the
 * token is the file's content, trimmed.
 */
export function tokenFileProvider(file: string, extensions: Readonly<Record<string, string>>): OAuthBearerTokenProvider {
  let cached: { stamp: string; value: string } | undefined;
  return async () => {
    let stamp: string;
    try {
      const stat = await fs.stat(file);
      stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      if (cached?.stamp !== stamp) cached = { stamp, value: (await fs.readFile(file, 'utf8')).trim() };
    } catch (error) {
      throw new KafkaAuthenticationFailed(`the OAUTHBEARER token file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (cached.value === '') throw new KafkaAuthenticationFailed(`the OAUTHBEARER token file ${file} is empty`);
    return { value: cached.value, ...(Object.keys(extensions).length > 0 ? { extensions: { ...extensions } } : {}) };
  };
}

/** kafkajs' `sasl` option, without the authentication wrapper client.ts adds. */
export function saslOptions(settings: SaslSettings, oauthBearerProvider: OAuthBearerTokenProvider | undefined): SASLOptions {
  switch (settings.mechanism) {
    case 'PLAIN':
      return { mechanism: 'plain', username: settings.username, password: settings.password };
    case 'SCRAM-SHA-256':
      return { mechanism: 'scram-sha-256', username: settings.username, password: settings.password };
    case 'SCRAM-SHA-512':
      return { mechanism: 'scram-sha-512', username: settings.username, password: settings.password };
    case 'OAUTHBEARER': {
      const provider = settings.tokenFile !== undefined ? tokenFileProvider(settings.tokenFile, settings.extensions) : oauthBearerProvider;
      if (provider === undefined) {
        throw new ConfigException(
          "SASL/OAUTHBEARER needs a token: give the instance a token provider (StreamsInstance option oauthBearerTokenProvider) or a token file ('sasl.oauthbearer.token.endpoint.url' = file:/path)",
        );
      }
      return { mechanism: 'oauthbearer', oauthBearerProvider: provider };
    }
  }
}
