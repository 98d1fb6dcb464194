/**
 * `sasl.jaas.config` as Java clients read it (Kafka's JaasConfig): one login module, its control flag, then
 * `name=value` options, ended by `;`. Values are words or quoted strings ("..." or '...', with Java's escapes);
 * `//` and `/* *\/` comments are skipped. Errors name the key and what is wrong, never the value: it holds a secret.
 */
import { ConfigException } from '../../errors';

export interface JaasLoginModule {
  readonly loginModule: string;
  readonly controlFlag: 'required' | 'requisite' | 'sufficient' | 'optional';
  readonly options: Readonly<Record<string, string>>;
}

const CONTROL_FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

type Token = { kind: 'word'; text: string } | { kind: 'quoted'; text: string } | { kind: 'symbol'; text: '=' | ';' } | { kind: 'end' };

const WORD = /[A-Za-z0-9_$.\-]/;
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '\\': '\\', '"': '"', "'": "'" };

class Tokenizer {
  private position = 0;

  constructor(
    private readonly text: string,
    private readonly fail: (reason: string) => never,
  ) {}

  next(): Token {
    this.skipBlanksAndComments();
    if (this.position >= this.text.length) return { kind: 'end' };
    const c = this.text[this.position]!;
    if (c === '=' || c === ';') {
      this.position++;
      return { kind: 'symbol', text: c };
    }
    if (c === '"' || c === "'") return { kind: 'quoted', text: this.quoted(c) };
    if (WORD.test(c)) {
      const start = this.position;
      while (this.position < this.text.length && WORD.test(this.text[this.position]!)) this.position++;
      return { kind: 'word', text: this.text.slice(start, this.position) };
    }
    return this.fail(`unexpected character '${c}'`);
  }

  private skipBlanksAndComments(): void {
    for (;;) {
      while (this.position < this.text.length && /\s/.test(this.text[this.position]!)) this.position++;
      if (this.text.startsWith('//', this.position)) {
        const end = this.text.indexOf('\n', this.position);
        this.position = end < 0 ? this.text.length : end + 1;
      } else if (this.text.startsWith('/*', this.position)) {
        const end = this.text.indexOf('*/', this.position + 2);
        if (end < 0) this.fail('a comment is not closed');
        this.position = end + 2;
      } else {
        return;
      }
    }
  }

  /** A quoted string with Java's escapes (as java.io.StreamTokenizer reads them, octal included). */
  private quoted(quote: string): string {
    let value = '';
    this.position++;
    for (;;) {
      if (this.position >= this.text.length) this.fail('a quoted value is not closed');
      const c = this.text[this.position++]!;
      if (c === quote) return value;
      if (c === '\n') this.fail('a quoted value runs past the end of its line');
      if (c !== '\\') {
        value += c;
        continue;
      }
      const escaped = this.text[this.position++];
      if (escaped === undefined) this.fail('a quoted value ends with a lone backslash');
      const octal = /^[0-7]{1,3}/.exec(this.text.slice(this.position - 1, this.position + 2));
      if (octal) {
        value += String.fromCharCode(parseInt(octal[0], 8) & 0xff);
        this.position += octal[0].length - 1;
      } else {
        value += SIMPLE_ESCAPES[escaped] ?? escaped;
      }
    }
  }
}

/** Parses the value of `key` (a `sasl.jaas.config`, possibly prefixed); a ConfigException names what is malformed. */
export function parseJaasConfig(key: string, text: string): JaasLoginModule {
  const fail = (reason: string): never => {
    throw new ConfigException(
      `'${key}' is not a valid JAAS configuration (<LoginModule class> required <name>="<value>" ... ;): ${reason}; the value is not shown as it holds credentials`,
    );
  };
  const tokens = new Tokenizer(text, fail);
  const module = tokens.next();
  if (module.kind !== 'word') return fail(module.kind === 'end' ? 'it is empty' : 'it does not start with a login module class');
  const flag = tokens.next();
  if (flag.kind !== 'word' || !CONTROL_FLAGS.has(flag.text)) fail(`the login module must be followed by required, requisite, sufficient or optional`);
  const options: Record<string, string> = Object.create(null) as Record<string, string>;
  for (;;) {
    const name = tokens.next();
    if (name.kind === 'symbol' && name.text === ';') break;
    if (name.kind === 'end') fail(`it must end with ';'`);
    if (name.kind !== 'word') fail(`an option name was expected`);
    const optionName = (name as { text: string }).text;
    const equals = tokens.next();
    if (equals.kind !== 'symbol' || equals.text !== '=') fail(`option '${optionName}' must be followed by '='`);
    const value = tokens.next();
    if (value.kind !== 'word' && value.kind !== 'quoted') fail(`option '${optionName}' has no value`);
    options[optionName] = (value as { text: string }).text;
  }
  const rest = tokens.next();
  // Kafka's clients take exactly one login module from sasl.jaas.config.
  if (rest.kind !== 'end') fail(`it must hold exactly one login module, but more follows the first ';'`);
  return { loginModule: module.text, controlFlag: (flag as { text: string }).text as JaasLoginModule['controlFlag'], options };
}
