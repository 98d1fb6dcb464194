/**
 * The `sluice` command: `start` runs a node from a configuration file, `demo` runs the examples on a broker of
 * its own, `init` creates an application of one's own (init/), `completion` prints a shell's completion script; status, query, restart, stop, deploy, delete, events,
 * topology, lag, metrics, stores, topologies and config manage a running node through its API (cli/). Usage errors, configuration
 * errors and the API's error answers end with one line on stderr and the exit code cli/exit-codes.ts gives them.
 */

import * as path from 'node:path';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { SluiceApiError } from '../client';
import { SluiceError } from '../errors';
import { hashApiToken, newApiToken } from '../server/auth/api-tokens';
import { hashPassword } from '../server/auth/password-hash';
import { describeAppliedKeys } from '../streams/config/config-keys';
import { SLUICE_VERSION } from '../streams/runtime/sluice-version';
import { ENVIRONMENT_VARIABLES, loadHostConfig, type ConfigFlags, type LogFormat } from './config/host-config';
import { LOG_LEVELS } from './config/schema';
import { addClientCommands } from './cli/client-commands';
import { completionScript, SHELLS, type Shell } from './cli/completion';
import { EXIT, EXIT_CODES_HELP, exitCodeOf } from './cli/exit-codes';
import { addInspectCommands } from './cli/inspect-commands';
import { runDemo } from './demo';
import { SluiceHost } from './host';
import { scaffoldApplication } from './init/scaffold';
import { readSecret } from './password-input';
import { stopOnSignals } from './shutdown';

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be a port number, 0-65535.');
  return Number(value);
}

function positive(value: string): number {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError('must be a positive number.');
  return n;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

function logFormatOption(): Option {
  return new Option('--log-format <format>', 'log lines: pretty (default on a terminal) or json (default elsewhere)').choices(['pretty', 'json']);
}

const START_HELP = `
The configuration file (YAML or JSON):

  server:                     # all optional
    host: 0.0.0.0             # HTTP and gRPC interface (default 127.0.0.1: this machine only)
    port: 8080                # HTTP port (default 8080)
    grpcPort: 0               # peer service port (default: a free one)
    advertisedHost: node-1    # name in application.server (default: host, or the machine's name)
    headless: false           # true: refuse restart, stop and deploy through the API
    users:                    # HTTP Basic users; no users, tokens or jwt: no authentication
      alice: { password: "scrypt$32768$8$1$...", role: operator }   # hash from sluice hash-password
      bob: { password: "scrypt$...", role: viewer }    # viewer: reads and store queries only
    allowPlaintextPasswords: false  # true: accept plain-text passwords (development only)
    tokens:                   # API tokens (Authorization: Bearer sluice_...), from sluice new-token
      - { name: ci, hash: "sha256$...", role: operator }
    jwt:                      # Bearer JWTs, verified against a JWKS
      jwks: https://idp.example.com/.well-known/jwks.json   # or a JWKS file
      issuer: https://idp.example.com/                      # optional, checked when given
      audience: sluice                                      # optional, checked when given
      roleClaim: role                                       # claim holding viewer or operator (a.b for nested)
      allowTokensWithoutExpiry: false                       # true: accept tokens without exp (never expire)
    failedLogins: { perAddress: 10, perUser: 20, windowMs: 60000 }  # past these, password logins answer 429
    cors: { origins: ["https://console.example.com"] }      # browser origins allowed; none: no CORS
    tls:                      # HTTPS: PEM files (or PEM text via \${file:...} / \${env:...})
      certificate: /etc/sluice/tls/tls.crt
      key: /etc/sluice/tls/tls.key
      keyPassword: \${env:SLUICE_TLS_KEY_PASSWORD}          # when the key is encrypted
      clientCa: /etc/sluice/tls/clients-ca.crt              # mutual TLS: clients need a certificate it signed
    allowUnauthenticated: false  # true: serve a host other than loopback without credentials
    timeouts: { requestMs: 30000, headersMs: 10000, keepAliveMs: 72000 }  # a request must arrive within these
    maxConnections: 1000      # HTTP connections held at once; past it new ones are closed (logged)
  peers:                      # how nodes authenticate each other on the gRPC port (docs/security.md, "Security between nodes")
    secret: \${file:/etc/sluice-peers/secret}   # cluster secret, 16+ characters, the same on every node
    tls: { ca: ca.pem, certificate: node.pem, key: node.key }   # PEM files: mutual TLS with the cluster's CA
  log:                        # lines on standard output
    level: info               # every component's level, unless components gives its own
    format: auto              # auto: pretty on a terminal, JSON lines elsewhere; pretty; json
    components: { kafka: warn, streams: info, http: info, peers: info }   # kafka: warn unless given
  streams:                    # Kafka Streams configuration shared by every instance
    bootstrap.servers: localhost:9092   # required
    state.dir: /var/lib/sluice
  topologies:                 # modules exporting TopologyDefinition objects (compiled JavaScript)
    - module: ./dist/examples
  instances:                  # what to start
    - topology: word-count    # a topology name or alias
      applicationId: word-count
      config: { num.stream.threads: 2 }

Streams configuration Sluice applies, in \`streams:\` or an instance's \`config\` (Kafka Streams' names; every other
key Kafka Streams or its clients accept is taken and named at start as not applied; \`topic.<key>\` configures
the internal topics; client keys also under \`consumer.\`, \`main.consumer.\`, \`restore.consumer.\`, \`producer.\`,
\`admin.\`):
${describeAppliedKeys()}

Environment variables (override the file; flags override both):
${ENVIRONMENT_VARIABLES.map((v) => `  ${v.name.padEnd(30)}${v.key ? `${v.key}: ` : ''}${v.description}`).join('\n')}

Without users, tokens or jwt, Sluice listens on loopback only and says so at start; a host other machines reach
(such as 0.0.0.0) needs them, or --allow-unauthenticated to serve it without authentication on purpose. With them,
every route but /health and its probes needs credentials (401 otherwise); restart, stop, delete and deploy need the
operator role (403 otherwise). Instances
deployed through the API may set streams and client tuning only (the deploy body in /openapi.json lists the keys);
files, directories, modules, endpoints and credentials come from this configuration.

The gRPC peer port listens on the same host. Off loopback it needs peers.secret and/or peers.tls, unless the API
itself is open on purpose (no users, --allow-unauthenticated); with peers.tls, nodes show each other certificates
signed by the cluster's CA, and refuse any other.

SIGTERM or Ctrl-C closes the instances (they commit and write checkpoints), then the server. With group.instance.id
(static membership) a node keeps its place in each consumer group for session.timeout.ms, so that a restart within
it moves no partition, and nobody processes its partitions meanwhile; before removing a node for good,
\`sluice stop --all --leave-group\` moves them to the other nodes at once.
`;

export function program(): Command {
  const cli = new Command('sluice')
    .description('Runs Kafka Streams-style topologies written in TypeScript, with a management API over HTTP.')
    .version(SLUICE_VERSION)
    .showSuggestionAfterError(false)
    // Commander's own exits (usage errors, help) come back to main, which gives usage errors their code.
    .exitOverride()
    .addHelpText(
      'after',
      `
Without users, \`sluice start\` listens on loopback only; serving other machines takes users (server.users), API
tokens or JWTs, or --allow-unauthenticated to do without on purpose. \`sluice start --help\` has the details;
\`sluice hash-password\` and \`sluice new-token\` make the credentials to configure.

status, query, restart, stop, deploy, delete, events, topology, lag, metrics, stores, topologies and config act on a
running node (--url, else SLUICE_URL, else http://localhost:8080); \`sluice <command> --help\` lists each one's options.
${EXIT_CODES_HELP}`,
    );

  cli
    .command('start')
    .description('start a Sluice node from a configuration file')
    .option('-c, --config <file>', 'configuration file, YAML or JSON (or SLUICE_CONFIG)')
    .option('--host <host>', 'HTTP interface to listen on')
    .option('-p, --port <port>', 'HTTP port', port)
    .option('--bootstrap-servers <servers>', 'Kafka brokers, host:port[,host:port...]')
    .option('--state-dir <dir>', 'directory of the local state stores')
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS))
    .addOption(logFormatOption())
    .option('--allow-unauthenticated', 'serve a host other than loopback without users (server.allowUnauthenticated)')
    .addHelpText('after', START_HELP)
    .action(async (flags: ConfigFlags) => {
      const host = await SluiceHost.start({ config: loadHostConfig(flags) });
      stopOnSignals(() => host.stop(), say);
    });

  cli
    .command('demo')
    .description('run the example topologies on a Kafka broker of its own, with sample data')
    .option('-p, --port <port>', 'HTTP port', port, 8080)
    .option('--host <host>', 'HTTP interface to listen on', 'localhost')
    .option('--allow-unauthenticated', 'serve a host other than loopback (the demo has no users)')
    .option('--rate <records>', 'sample records per second', positive, 2)
    .addOption(logFormatOption())
    .addHelpText(
      'after',
      `
The broker comes from the first of: KAFKA_BOOTSTRAP_SERVERS, a Docker engine (Testcontainers), or Apache Kafka's
own jars run with the local Java 17+ (fetched once with Maven). Ctrl-C stops everything the demo started.
`,
    )
    .action(async (flags: { port: number; host: string; allowUnauthenticated?: boolean; rate: number; logFormat?: LogFormat }) => {
      // The banner and progress are the demo's output: stdout; logs go to stderr.
      const demo = await runDemo({
        port: flags.port,
        host: flags.host,
        allowUnauthenticated: flags.allowUnauthenticated === true,
        recordsPerSecond: flags.rate,
        ...(flags.logFormat ? { logFormat: flags.logFormat } : {}),
        say: (line) => process.stdout.write(`${line}\n`),
      });
      stopOnSignals(() => demo.stop(), say);
    });

  cli
    .command('init')
    .argument('<dir>', 'where the application goes: a new or empty directory')
    .description('create an application of your own: a topology in TypeScript with its test, its configuration, an image and a Kustomize overlay')
    .option('--name <name>', "its name: the package's, the application id, the topics' prefix, the image's (default: the directory's)")
    .option('--sluice <spec>', 'the sluice dependency as npm takes it: a version range, a tarball, a git URL (default: ^ this version)')
    .action((dir: string, flags: { name?: string; sluice?: string }) => {
      const app = scaffoldApplication({ dir, ...flags });
      const cd = path.relative(process.cwd(), app.dir) || '.';
      process.stdout.write(
        [
          `Created ${app.name} in ${app.dir}: ${app.files.join(', ')}.`,
          '',
          `  cd ${cd}`,
          '  npm install',
          '  npm test        # the topology on the TopologyTestDriver',
          `  npm start       # with Kafka at localhost:9092 (or SLUICE_BOOTSTRAP_SERVERS) and its topics ${app.name}-lines, ${app.name}-word-counts`,
          `  npx sluice query ${app.name} word-counts get key=kafka`,
          '',
          'Its README.md tells the rest: the image, and the Kubernetes overlay.',
          '',
        ].join('\n'),
      );
    });

  cli
    .command('hash-password')
    .description('print the scrypt hash of a password for server.users (read from standard input, or asked for)')
    .addHelpText(
      'after',
      `
The password is read from standard input when it is piped (without its final line break), else asked for twice on
the terminal; never from the command line. The hash goes to standard output:

  server:
    users:
      alice: { password: "scrypt$32768$8$1$...", role: operator }
`,
    )
    .action(async () => {
      process.stdout.write(`${await hashPassword(await readSecret('Password'))}\n`);
    });

  cli
    .command('new-token')
    .description('make an API token for server.tokens: prints the token once, and the hash to configure')
    .action(() => {
      const token = newApiToken();
      process.stdout.write(`token: ${token}\nhash:  ${hashApiToken(token)}\n`);
      say('Give the token to its client (Authorization: Bearer <token>); configure only the hash, with a name and a role.');
    });

  addClientCommands(cli);
  addInspectCommands(cli);

  cli
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .description('print the shell completion script of sluice: its commands and their options')
    .addHelpText(
      'after',
      `
bash: add to ~/.bashrc (or write it to /etc/bash_completion.d/sluice)
  source <(sluice completion bash)
zsh: add to ~/.zshrc, after compinit (or write it to a file _sluice in a directory of $fpath)
  source <(sluice completion zsh)
`,
    )
    .action((shell: Shell) => {
      process.stdout.write(completionScript(cli, shell));
    });
  return cli;
}

/** Runs the command line; failures that are the user's to fix are one line, not a stack trace. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await program().parseAsync([...argv]);
  } catch (error) {
    // Commander has written its message (or the help) already.
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
    if (error instanceof SluiceError) {
      say(`sluice: ${error.message}${error instanceof SluiceApiError ? ` (${error.exception}, HTTP ${error.status})` : ''}`);
      process.exit(exitCodeOf(error));
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      say(`sluice: cannot listen: ${(error as Error).message}`);
      process.exit(EXIT.failed);
    }
    throw error;
  }
}
