import { parseJaasConfig } from './jaas';

describe('parseJaasConfig', () => {
  it('reads a login module, its flag and quoted options, as Java users write them', () => {
    expect(
      parseJaasConfig('sasl.jaas.config', 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="al;ce=\\"s3cret\\"";'),
    ).toEqual({
      loginModule: 'org.apache.kafka.common.security.plain.PlainLoginModule',
      controlFlag: 'required',
      options: { username: 'alice', password: 'al;ce="s3cret"' },
    });
  });

  it("takes unquoted words, single quotes, Java's escapes, comments and line breaks", () => {
    const parsed = parseJaasConfig(
      'k',
      `org.apache.kafka.common.security.scram.ScramLoginModule sufficient
        // the user
        username=bob /* a comment */ password='tab\\there\\\\back\\101' tokenauth=true
      ;`,
    );
    expect(parsed.controlFlag).toBe('sufficient');
    expect({ ...parsed.options }).toEqual({ username: 'bob', password: 'tab\there\\backA', tokenauth: 'true' });
  });

  it('gives options a map that no option name can confuse', () => {
    const { options } = parseJaasConfig('k', 'm required __proto__="x" constructor="y";');
    expect(options['__proto__']).toBe('x');
    expect(options['constructor']).toBe('y');
  });

  it.each([
    ['', 'it is empty'],
    ['"quoted" required;', 'it does not start with a login module class'],
    ['m;', 'the login module must be followed by required, requisite, sufficient or optional'],
    ['m always;', 'the login module must be followed by required'],
    ['m required username="alice"', "it must end with ';'"],
    ['m required username "alice";', "option 'username' must be followed by '='"],
    ['m required username=;', "option 'username' has no value"],
    ['m required password="s3cret;', 'a quoted value is not closed'],
    ['m required password="s3c\nret";', 'a quoted value runs past the end of its line'],
    ['m required a="b"; n required;', 'it must hold exactly one login module'],
    ['m required /* unclosed', 'a comment is not closed'],
    ['m required a=b, c=d;', "unexpected character ','"],
  ])('refuses %j with a ConfigException that names the key and the problem', (text, reason) => {
    expect(() => parseJaasConfig('consumer.sasl.jaas.config', text)).toThrow(`'consumer.sasl.jaas.config' is not a valid JAAS configuration`);
    expect(() => parseJaasConfig('consumer.sasl.jaas.config', text)).toThrow(reason);
  });

  it('never shows the secret in its error', () => {
    for (const text of ['m required password="s3cretvalue', 'm required password=s3cretvalue', 'm required password="s3cretvalue" x']) {
      let message = '';
      try {
        parseJaasConfig('sasl.jaas.config', text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('not a valid JAAS configuration');
      expect(message).not.toContain('s3cret');
    }
  });
});
