import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadHostConfig } from './host-config';
import { resolveReferences } from './references';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-references-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const full = path.join(dir, name);
  fs.writeFileSync(full, text);
  return full;
}

describe('${env:} and ${file:} in the configuration file', () => {
  it('takes values from environment variables and files, whole or inside a value, when the file is loaded', () => {
    file('kafka-password', 'file-secret-1\n');
    const config = loadHostConfig(
      {
        config: file(
          'sluice.yaml',
          [
            'streams:',
            '  bootstrap.servers: ${env:KAFKA_BROKERS}',
            '  security.protocol: SASL_SSL',
            '  sasl.mechanism: PLAIN',
            '  sasl.jaas.config: org.apache.kafka.common.security.plain.PlainLoginModule required username="${env:KAFKA_USER}" password="${file:kafka-password}";',
            '  client.id: literal-$${env:NOT_RESOLVED}',
          ].join('\n'),
        ),
      },
      { KAFKA_BROKERS: 'b-1:9096,b-2:9096', KAFKA_USER: 'api-key-1' },
    );
    expect(config.streams).toEqual({
      'bootstrap.servers': 'b-1:9096,b-2:9096',
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'PLAIN',
      'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="api-key-1" password="file-secret-1";',
      'client.id': 'literal-${env:NOT_RESOLVED}',
    });
  });

  it('resolves inside lists and nested sections, absolute paths as given', () => {
    const absolute = file('token', 'tok\r\n');
    expect(resolveReferences({ instances: [{ config: { a: `\${file:${absolute}}` } }] }, { env: {}, baseDir: '/elsewhere' })).toEqual({
      instances: [{ config: { a: 'tok' } }],
    });
  });

  it('names the key and the variable or file that is missing, never a value', () => {
    const load = (text: string) => () => loadHostConfig({ config: file('bad.yaml', text) }, { OTHER: 'other-secret' });
    expect(load('streams:\n  bootstrap.servers: x:1\n  sasl.jaas.config: a ${env:KAFKA_PASSWORD}')).toThrow(
      "Invalid configuration: 'streams.sasl.jaas.config' refers to the environment variable KAFKA_PASSWORD, which is not set",
    );
    expect(load('streams:\n  bootstrap.servers: ${file:/no/such/secret}')).toThrow(
      "'streams.bootstrap.servers' refers to the file /no/such/secret, which cannot be read (ENOENT)",
    );
    expect(load('streams:\n  bootstrap.servers: ${env:}')).toThrow("'streams.bootstrap.servers' has an empty ${env:} reference");
  });
});
