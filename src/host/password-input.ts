/**
 * Reads a secret for `sluice hash-password` and the client commands' `--user`: from standard input when it is piped
 * (the whole input, its trailing line break removed), else from a prompt on the terminal that echoes nothing, asked
 * twice for a new secret. Never from argv, which other users of the machine can read and shells keep in their history.
 */

import { InvalidRequest } from '../errors';

function readAll(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    input.on('data', (chunk: Buffer) => chunks.push(chunk));
    input.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')));
    input.on('error', reject);
  });
}

/** One line typed on the terminal, not echoed. */
function prompt(question: string, input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(question);
    let typed = '';
    const finish = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new InvalidRequest('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}

export interface SecretOptions {
  /** Ask twice on a terminal (a new secret); false asks once (a secret to sign in with). Default true. */
  confirm?: boolean;
  input?: NodeJS.ReadStream;
  output?: NodeJS.WriteStream;
}

export async function readSecret(what: string, options: SecretOptions = {}): Promise<string> {
  const { confirm = true, input = process.stdin, output = process.stderr } = options;
  const secret = input.isTTY ? await prompt(`${what}: `, input, output) : await readAll(input);
  if (secret === '') throw new InvalidRequest(`empty ${what.toLowerCase()}`);
  if (confirm && input.isTTY && (await prompt(`${what} again: `, input, output)) !== secret) throw new InvalidRequest(`the two ${what.toLowerCase()}s differ`);
  return secret;
}
