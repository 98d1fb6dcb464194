import type { Schema } from 'avsc';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SerdeNotReady } from '../../../errors';
import { makeTestCertificates, type TestCertificates } from '../../kafka/testing/certificates';
import { SchemaRegistrySerdes } from '.';
import { urlWithoutCredentials } from './registry-client';
import { RegistryDouble } from './testing/registry-double';

const ORDER: Schema = { type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] };

/** Registers as a task does, waiting out what the serde is not ready for; SerdeNotReady past `attempts` tries. */
async function registers(config: Record<string, unknown>, topic = 'orders', attempts = 5): Promise<void> {
  const serde = SchemaRegistrySerdes.avro({ schema: ORDER });
  for (let attempt = 1; ; attempt++) {
    try {
      return await serde.prepare!(topic, config);
    } catch (error) {
      if (!(error instanceof SerdeNotReady) || attempt === attempts) throw error;
      await error.ready;
    }
  }
}

describe("the registry client's connection", () => {
  let certs: TestCertificates;
  beforeAll(() => {
    certs = makeTestCertificates(['127.0.0.1'], 'key-pw');
  });

  describe('over TLS, from the schema.registry.ssl.* settings', () => {
    let registry: RegistryDouble;
    let url: string;
    beforeAll(async () => {
      registry = new RegistryDouble({ tls: { key: certs.broker.key, cert: certs.broker.chain } });
      url = await registry.start();
    });
    afterAll(() => registry.stop());

    it("trusts the registry's certificate through the truststore, as PEM text or a PEM file", async () => {
      await registers({ 'schema.registry.url': url, 'schema.registry.ssl.truststore.certificates': certs.ca });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-registry-tls-'));
      try {
        fs.writeFileSync(path.join(dir, 'ca.pem'), certs.ca);
        await registers({ 'schema.registry.url': url, 'schema.registry.ssl.truststore.location': path.join(dir, 'ca.pem'), 'schema.registry.ssl.truststore.type': 'PEM' });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(registry.requests.filter((r) => r === 'POST /subjects/orders-value/versions')).toHaveLength(2);
    });

    it('refuses a registry its truststore does not vouch for, and checks the host name unless the algorithm is empty: a configuration error', async () => {
      await expect(registers({ 'schema.registry.url': url, 'schema.registry.ssl.truststore.certificates': certs.unknownCa })).rejects.toThrow(
        expect.objectContaining({ exception: 'ConfigException', message: expect.stringContaining(`the Schema Registry at ${url} presented a certificate Sluice does not trust`) }),
      );
      const byName = url.replace('127.0.0.1', 'localhost');
      await expect(registers({ 'schema.registry.url': byName, 'schema.registry.ssl.truststore.certificates': certs.ca })).rejects.toThrow(/ERR_TLS_CERT_ALTNAME_INVALID/);
      await registers({ 'schema.registry.url': byName, 'schema.registry.ssl.truststore.certificates': certs.ca, 'schema.registry.ssl.endpoint.identification.algorithm': '' });
    });

    it('refuses a JKS store, naming what Sluice reads', async () => {
      await expect(registers({ 'schema.registry.url': url, 'schema.registry.ssl.truststore.location': '/x.jks', 'schema.registry.ssl.truststore.type': 'JKS' })).rejects.toThrow(
        "'schema.registry.ssl.truststore.type' is JKS, but Sluice reads the registry's truststore as PEM",
      );
    });
  });

  it('presents the client certificate for mutual TLS, its key decrypted with schema.registry.ssl.key.password', async () => {
    const registry = new RegistryDouble({ tls: { key: certs.broker.key, cert: certs.broker.chain, ca: certs.ca } });
    const url = await registry.start();
    try {
      const trust = { 'schema.registry.url': url, 'schema.registry.ssl.truststore.certificates': certs.ca };
      await expect(registers(trust)).rejects.toThrow(expect.objectContaining({ exception: 'ConfigException', message: expect.stringContaining('refused the client certificate') }));
      await registers({
        ...trust,
        'schema.registry.ssl.keystore.certificate.chain': certs.client.chain,
        'schema.registry.ssl.keystore.key': certs.client.key,
        'schema.registry.ssl.key.password': 'key-pw',
      });
      expect(registry.subjectNames()).toEqual(['orders-value']);
    } finally {
      await registry.stop();
    }
  });

  it('sends basic.auth.user.info; refused credentials, after three tries, are a configuration error naming the registry, the subject and the status', async () => {
    const registry = new RegistryDouble({ users: ['app:right'] });
    const url = await registry.start();
    try {
      await expect(registers({ 'schema.registry.url': url, 'basic.auth.user.info': 'app:wrong' })).rejects.toThrow(
        expect.objectContaining({
          exception: 'ConfigException',
          message: `Invalid configuration: the Schema Registry at ${url} refused the credentials (HTTP 401) for subject 'orders-value': check basic.auth.user.info`,
        }),
      );
      expect(registry.requests.filter((r) => r === 'POST /subjects/orders-value/versions')).toHaveLength(3);
      await registers({ 'schema.registry.url': url, 'basic.auth.user.info': 'app:right' });
    } finally {
      await registry.stop();
    }
  });

  it('a refusal for a moment (credentials reloaded on the registry) is tried again', async () => {
    const registry = new RegistryDouble({ users: ['app:right'] });
    const url = await registry.start();
    try {
      registry.setUsers(['app:old']);
      setTimeout(() => registry.setUsers(['app:right']), 150);
      await registers({ 'schema.registry.url': url, 'basic.auth.user.info': 'app:right' });
      expect(registry.subjectNames()).toEqual(['orders-value']);
    } finally {
      await registry.stop();
    }
  });

  it('names the registry without the credentials its URL may carry', () => {
    expect(urlWithoutCredentials('https://app:secret@registry-1:8081, http://registry-2:8081/path@x')).toBe('https://registry-1:8081,http://registry-2:8081/path@x');
  });
});

describe('without @confluentinc/schemaregistry installed', () => {
  it('refuses to make a registry serde, saying what to install', () => {
    jest.isolateModules(() => {
      jest.doMock('@confluentinc/schemaregistry/dist/schemaregistry-client', () => {
        throw Object.assign(new Error("Cannot find module '@confluentinc/schemaregistry/dist/schemaregistry-client'"), { code: 'MODULE_NOT_FOUND' });
      });
      const { SchemaRegistrySerdes: isolated } = require('.') as typeof import('.');
      expect(() => isolated.avro()).toThrow(expect.objectContaining({ exception: 'SchemaRegistryClientNotInstalled', message: expect.stringContaining('install @confluentinc/schemaregistry to use Schema Registry serdes') }));
    });
  });
});
