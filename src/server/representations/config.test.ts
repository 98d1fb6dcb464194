import { isSecretKey, visibleConfig } from './config';

describe('config secrets', () => {
  it.each([
    'ssl.key.password',
    'producer.ssl.keystore.password',
    'sasl.jaas.config',
    'consumer.sasl.jaas.config',
    'basic.auth.user.info',
    'schema.registry.basic.auth.user.info',
    'oauth.client.secret',
    'sasl.oauthbearer.token',
    'api.key',
    'aws.credentials',
  ])('hides %s', (key) => expect(isSecretKey(key)).toBe(true));

  it.each(['bootstrap.servers', 'application.id', 'state.dir', 'passwordless.mode', 'token.endpoint.url', 'secret.dir.name'])(
    'shows %s',
    (key) => expect(isSecretKey(key)).toBe(false),
  );

  it('sorts keys and keeps value types', () => {
    expect(JSON.stringify(visibleConfig({ b: 1, 'a.password': 'p', c: true }))).toBe('{"a.password":"[hidden]","b":1,"c":true}');
  });
});
