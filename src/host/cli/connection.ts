/**
 * How the client commands reach a node: `--url` (or SLUICE_URL, else http://localhost:8080, `sluice start`'s
 * default port), a token (`--token` or SLUICE_TOKEN) or a user (`--user`, its password from SLUICE_PASSWORD or asked
 * for without echo; never on the command line), CA and client certificate files for HTTPS.
 */

import * as fs from 'node:fs';
import { Command, Option } from 'commander';
import { InvalidClientRequest } from '../../errors';
import { SluiceClient, type ClientOptions, type TlsOptions } from '../../client';
import { OUTPUT_FORMATS, type View } from './output';
import { readSecret } from '../password-input';

export const DEFAULT_URL = 'http://localhost:8080';

export interface ConnectionFlags extends View {
  url?: string;
  token?: string;
  user?: string;
  ca?: string;
  cert?: string;
  key?: string;
}

export const CONNECTION_HELP = `
Connection: --url, else SLUICE_URL, else ${DEFAULT_URL}. Credentials: an API token or JWT (SLUICE_TOKEN, or --token),
or a user (--user) whose password comes from SLUICE_PASSWORD, else is asked for on the terminal (or read from piped
standard input); a password is never taken from the command line. HTTPS with a private CA: --ca (and --cert, --key for
mutual TLS).
`;

/** Adds the connection and output options to a client command. */
export function withConnection(command: Command): Command {
  return command
    .option('--url <url>', `the node's base URL (default: SLUICE_URL, else ${DEFAULT_URL})`)
    .option('--token <token>', 'API token or JWT (default: SLUICE_TOKEN)')
    .option('--user <name>', 'HTTP Basic user; the password from SLUICE_PASSWORD, else asked for')
    .option('--ca <file>', 'PEM file of the CA to trust for HTTPS')
    .option('--cert <file>', 'PEM client certificate, for a node that asks for mutual TLS')
    .option('--key <file>', "PEM key of the client certificate")
    .addOption(new Option('-o, --output <format>', 'table, wide (more columns), json or yaml (the API resource)').choices(OUTPUT_FORMATS).default('table'))
    .option('--no-headers', 'table and wide: no header line, for scripts')
    .addHelpText('after', CONNECTION_HELP);
}

function readPem(what: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new InvalidClientRequest(`cannot read the ${what} file ${file}: ${(error as Error).message}`);
  }
}

/** The client options from the flags and the environment; the password is asked for only when needed. */
export async function clientOptions(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  askPassword: (prompt: string) => Promise<string>,
): Promise<ClientOptions> {
  const options: ClientOptions = { url: flags.url ?? env.SLUICE_URL ?? DEFAULT_URL };
  if (flags.user !== undefined) {
    if (flags.token !== undefined) throw new InvalidClientRequest('give either --token or --user, not both');
    options.username = flags.user;
    options.password = env.SLUICE_PASSWORD ?? (await askPassword(`Password for ${flags.user}`));
  } else {
    const token = flags.token ?? env.SLUICE_TOKEN;
    if (token !== undefined && token !== '') options.token = token;
  }
  if (flags.ca !== undefined || flags.cert !== undefined || flags.key !== undefined) {
    if ((flags.cert === undefined) !== (flags.key === undefined)) throw new InvalidClientRequest('--cert and --key go together');
    const tls: TlsOptions = {};
    if (flags.ca !== undefined) tls.ca = readPem('CA', flags.ca);
    if (flags.cert !== undefined) tls.cert = readPem('certificate', flags.cert);
    if (flags.key !== undefined) tls.key = readPem('key', flags.key);
    options.tls = tls;
  }
  return options;
}

const askPassword = (prompt: string) => readSecret(prompt, { confirm: false });

/** Runs a command's work with a client, closed afterwards whatever happens. */
export async function withClient(flags: ConnectionFlags, work: (client: SluiceClient) => Promise<void>): Promise<void> {
  const client = new SluiceClient(await clientOptions(flags, process.env, askPassword));
  try {
    await work(client);
  } finally {
    await client.close();
  }
}
