import { isSecretKey, withSecretsHidden } from './secrets';

describe('secret configuration keys', () => {
  const secrets = [
    'ssl.key.password',
    'ssl.keystore.password',
    'ssl.truststore.password',
    'ssl.keystore.key',
    'ssl.keystore.certificate.chain',
    'ssl.truststore.certificates',
    'sasl.jaas.config',
    'sasl.oauthbearer.token',
    'basic.auth.user.info',
    'schema.registry.basic.auth.user.info',
    'oauth.client.secret',
    'sasl.oauthbearer.assertion.private.key.passphrase',
    'api.key',
    'aws.credentials',
  ];
  const prefixes = ['', 'consumer.', 'producer.', 'admin.', 'restore.consumer.', 'main.consumer.'];

  it.each(secrets.flatMap((key) => prefixes.map((prefix) => prefix + key)))('hides %s', (key) => expect(isSecretKey(key)).toBe(true));

  it.each([
    'bootstrap.servers',
    'application.id',
    'state.dir',
    'passwordless.mode',
    'token.endpoint.url',
    'secret.dir.name',
    'ssl.keystore.location',
    'ssl.keystore.type',
    'sasl.mechanism',
    'consumer.key.deserializer',
  ])('shows %s', (key) => expect(isSecretKey(key)).toBe(false));

  it('hides the values, keeps the rest and the order', () => {
    expect(withSecretsHidden({ b: 1, 'consumer.ssl.keystore.key': '-----BEGIN PRIVATE KEY-----', c: true })).toEqual({
      b: 1,
      'consumer.ssl.keystore.key': '[hidden]',
      c: true,
    });
  });
});
