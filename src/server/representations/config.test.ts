import { visibleConfig } from './config';

describe('config resource', () => {
  it('sorts keys, keeps value types and hides secrets', () => {
    expect(JSON.stringify(visibleConfig({ b: 1, 'a.password': 'p', c: true, 'consumer.ssl.keystore.key': 'k' }))).toBe(
      '{"a.password":"[hidden]","b":1,"c":true,"consumer.ssl.keystore.key":"[hidden]"}',
    );
  });
});
