/**
 * A single-node Apache Kafka broker (KRaft, combined broker and controller) run from the cached jars, on free
 * loopback ports, with its data and logs in a fresh temporary directory.
 *
 * The broker must never outlive the process that started it, even when that process is killed with SIGKILL
 * or a test run is interrupted: Java runs under a small bash watchdog, in a process group of its own, that
 * polls the starting process every second and, once it is gone, kills the broker and deletes the directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { freePorts } from '../free-ports';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrokerProvisioningFailed } from '../../errors';
import { createKafkaClient } from '../../streams/kafka';
import { ensureKafkaJars, kafkaVersionSetting, parseKafkaVersion, type KafkaRelease } from './jars';

export interface LocalKafkaOptions {
  /** The Kafka release: `3.9`, `4.2`, `4.2.1`…; default `$SLUICE_KAFKA_VERSION`, else 3.9.1. */
  kafkaVersion?: string;
  /** Directory of the broker's jars (of that release); default: the cache, fetched with Maven when missing. */
  libsDir?: string;
  /** Java command; default `java`. */
  javaCommand?: string;
  /** How long the broker may take to answer `describeCluster()`; default 60 s. */
  startTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL; default 10 s. */
  stopGraceMs?: number;
  /** Extra or overriding `server.properties` entries. */
  brokerProperties?: Readonly<Record<string, string>>;
  /** Where progress lines (the one-time jar download) go; default nowhere. */
  log?: (line: string) => void;
  /** Secured listeners beside the plaintext one (security tests); default none. */
  secured?: SecuredListenerOptions;
}

/**
 * A SASL_SSL listener (SCRAM-SHA-512 users created when the log dir is formatted, PLAIN users, and OAUTHBEARER with
 * Kafka's unsecured-token validator) and an SSL listener that requires a client certificate. The plaintext listener
 * stays, for the broker's own traffic and for tests' setup.
 */
export interface SecuredListenerOptions {
  /** PEM: the broker's private key (PKCS#8, unencrypted) and certificate chain, for both listeners. */
  readonly brokerKeyAndChain: string;
  /** PEM: the CA whose client certificates the SSL listener accepts. */
  readonly clientCa: string;
  readonly scramUsers: readonly BrokerUser[];
  readonly plainUsers: readonly BrokerUser[];
}

/** A user name and password of letters, digits, '-' and '_' (they go into the broker's JAAS and format arguments unquoted). */
export interface BrokerUser {
  readonly name: string;
  readonly password: string;
}

/** `host:port` of each listener of a broker. */
export interface BrokerListeners {
  readonly plaintext: string;
  readonly saslSsl?: string;
  readonly ssl?: string;
}

/**
 * The watchdog. Arguments: the pid to outlive and the broker's directory; environment: SLUICE_JAVA,
 * SLUICE_CLASSPATH, SLUICE_CLUSTER_ID, SLUICE_LOGGING (the JVM option naming the logging configuration: log4j 1's
 * for Kafka 3.x, log4j2's for Kafka 4.x). It formats the storage, then execs the broker in a background
 * subshell, and records the broker's exit status in `exit-status` should it die early. SIGTERM (stop) is
 * passed on and awaited; the parent's death ends the broker with SIGKILL, as its data is deleted anyway.
 * The cluster id goes as `--cluster-id=<id>`: a base64url id may start with '-', which `-t <id>` would
 * make the argument parser read as a flag. The broker's pid is kept in `broker.pid`; a `restart` file next to a
 * recorded exit status starts the broker again, on the same ports and data (for outage tests).
 */
const WATCHDOG = `
parent=$1
dir=$2
jvm_options=(-Xmx512m -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true -Djava.net.preferIPv4Stack=true
  "$SLUICE_LOGGING" "-Dkafka.logs.dir=$dir/logs")
format_args=()
[ -e "$dir/format-args" ] && mapfile -t format_args < "$dir/format-args"
broker() {
  "$SLUICE_JAVA" "\${jvm_options[@]}" -cp "$SLUICE_CLASSPATH" kafka.tools.StorageTool format \\
    "--cluster-id=$SLUICE_CLUSTER_ID" -c "$dir/server.properties" --ignore-formatted "\${format_args[@]}" || exit $?
  exec "$SLUICE_JAVA" "\${jvm_options[@]}" -cp "$SLUICE_CLASSPATH" kafka.Kafka "$dir/server.properties"
}
broker &
pid=$!
echo "$pid" > "$dir/broker.pid"
finish() {
  pkill "-$1" -P "$pid" 2>/dev/null
  kill "-$1" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rm -rf "$dir"
  exit 0
}
trap 'finish TERM' TERM
while kill -0 "$parent" 2>/dev/null; do
  if [ ! -e "$dir/exit-status" ] && ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"
    echo "$?" > "$dir/.exit-status" && mv "$dir/.exit-status" "$dir/exit-status"
  fi
  if [ -e "$dir/exit-status" ] && [ -e "$dir/restart" ]; then
    rm -f "$dir/restart" "$dir/exit-status"
    broker &
    pid=$!
    echo "$pid" > "$dir/broker.pid"
  fi
  sleep 1 & wait $!
done
finish KILL
`;

const BIND_ERROR = /Address already in use|BindException/;
const ATTEMPTS = 3;

export class LocalKafka {
  /** The Apache Kafka release it runs: `3.9.1`, `4.2.2`. */
  readonly version: string;
  /** `127.0.0.1:<port>`. */
  readonly bootstrapServers: string;
  /** Every listener's address; the secured ones only when asked for. */
  readonly listeners: BrokerListeners;
  /** The temporary directory holding config, data and logs; deleted on stop. */
  readonly dir: string;
  /** Pid of the watchdog, leader of the process group that holds the broker. */
  readonly watchdogPid: number;
  private readonly clusterId: string;
  private readonly watchdog: ChildProcess;
  private readonly exited: Promise<void>;
  private readonly stopGraceMs: number;
  private stopping: Promise<void> | undefined;

  private constructor(
    version: string,
    listeners: BrokerListeners,
    dir: string,
    clusterId: string,
    watchdog: ChildProcess,
    exited: Promise<void>,
    stopGraceMs: number,
  ) {
    this.version = version;
    this.bootstrapServers = listeners.plaintext;
    this.listeners = listeners;
    this.dir = dir;
    this.clusterId = clusterId;
    this.watchdog = watchdog;
    this.watchdogPid = watchdog.pid!;
    this.exited = exited;
    this.stopGraceMs = stopGraceMs;
  }

  /** Starts a broker and resolves once it answers `describeCluster()`. Retries on a port taken meanwhile. */
  static async start(options: LocalKafkaOptions = {}): Promise<LocalKafka> {
    const release = options.kafkaVersion === undefined ? kafkaVersionSetting() : parseKafkaVersion(options.kafkaVersion);
    const libsDir = options.libsDir ?? (await ensureKafkaJars(options.log, release));
    for (let attempt = 1; ; attempt++) {
      const broker = await LocalKafka.launch(release, libsDir, options);
      try {
        await broker.waitUntilReady(options.startTimeoutMs ?? 60_000);
        return broker;
      } catch (error) {
        const portTaken = BIND_ERROR.test(await broker.logTail());
        await broker.stop();
        if (!portTaken || attempt === ATTEMPTS) throw error;
      }
    }
  }

  private static async launch(release: KafkaRelease, libsDir: string, options: LocalKafkaOptions): Promise<LocalKafka> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-kafka-'));
    await mkdir(join(dir, 'logs'));
    const [port, controllerPort, saslSslPort, sslPort] = await freePorts(options.secured ? 4 : 2);
    const listeners: BrokerListeners = {
      plaintext: `127.0.0.1:${port}`,
      ...(options.secured ? { saslSsl: `127.0.0.1:${saslSslPort}`, ssl: `127.0.0.1:${sslPort}` } : {}),
    };
    const properties: Record<string, string> = {
      'process.roles': 'broker,controller',
      'node.id': '1',
      'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
      'controller.listener.names': 'CONTROLLER',
      listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
      'inter.broker.listener.name': 'PLAINTEXT',
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      'log.dirs': join(dir, 'data'),
      // One broker: replication factor 1 everywhere, and one partition for the internal topics, whose
      // coordinators all live on this broker anyway (fewer partitions to create on first use).
      'num.partitions': '1',
      'default.replication.factor': '1',
      'min.insync.replicas': '1',
      'offsets.topic.replication.factor': '1',
      'offsets.topic.num.partitions': '1',
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
      'transaction.state.log.num.partitions': '1',
      // Tests form groups all the time: no 3 s wait for more members before the first assignment.
      'group.initial.rebalance.delay.ms': '0',
      // Topics are created explicitly, as Kafka Streams does; a typo must fail, not create a topic.
      'auto.create.topics.enable': 'false',
      ...(options.secured ? await securedProperties(dir, listeners, controllerPort!, options.secured) : {}),
      ...options.brokerProperties,
    };
    await writeFile(join(dir, 'server.properties'), toProperties(properties));
    const logging = await writeLoggingConfig(dir, release);

    const clusterId = randomBytes(16).toString('base64url');
    const output = openSync(join(dir, 'console.log'), 'a');
    let watchdog: ChildProcess;
    try {
      watchdog = spawn('bash', ['-c', WATCHDOG, 'sluice-kafka-watchdog', String(process.pid), dir], {
        // A session and process group of its own: a Ctrl-C to the test run's terminal does not reach it
        // (the watchdog cleans up instead), and stop() can kill the whole group.
        detached: true,
        stdio: ['ignore', output, output],
        env: {
          ...process.env,
          SLUICE_JAVA: options.javaCommand ?? 'java',
          SLUICE_CLASSPATH: join(libsDir, '*'),
          SLUICE_CLUSTER_ID: clusterId,
          SLUICE_LOGGING: logging,
        },
      });
    } finally {
      closeSync(output);
    }
    const exited = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
    const spawned = await new Promise<Error | undefined>((resolve) => {
      watchdog.once('spawn', () => resolve(undefined));
      watchdog.once('error', resolve);
    });
    if (spawned) {
      await rm(dir, { recursive: true, force: true });
      throw new BrokerProvisioningFailed(`Could not start the Kafka watchdog (bash): ${spawned.message}`, { cause: spawned });
    }
    // The broker must not keep this process alive; the watchdog ends it when this process ends.
    watchdog.unref();
    return new LocalKafka(release.version, listeners, dir, clusterId, watchdog, exited, options.stopGraceMs ?? 10_000);
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const kafka = createKafkaClient({
      bootstrapServers: [this.bootstrapServers],
      clientId: 'sluice-local-kafka-probe',
      // Refused connections are expected until the broker listens.
      logLevel: 'silent',
      connectionTimeoutMs: 1000,
    });
    for (;;) {
      const status = await readFile(join(this.dir, 'exit-status'), 'utf8').catch(() => undefined);
      if (status !== undefined) {
        throw new BrokerProvisioningFailed(
          `The local Kafka ${this.version} broker exited with status ${status.trim()} while starting. Last log lines:\n${await this.logTail()}`,
        );
      }
      const admin = kafka.admin({ retry: { retries: 0 } });
      try {
        await admin.connect();
        // Another broker may have taken the port between our check and Java's bind: only ours will do.
        if ((await admin.describeCluster()).clusterId === this.clusterId) return;
      } catch {
        // not answering yet
      } finally {
        await admin.disconnect();
      }
      if (Date.now() > deadline) {
        throw new BrokerProvisioningFailed(
          `The local Kafka ${this.version} broker did not answer on ${this.bootstrapServers} within ${timeoutMs} ms. Last log lines:\n${await this.logTail()}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Outage tests: the broker process dies at once (SIGKILL, as in a crash), its data and ports kept for
   * `restart()`. Resolves once the watchdog has seen it die.
   */
  async kill(): Promise<void> {
    const pid = Number(await readFile(join(this.dir, 'broker.pid'), 'utf8'));
    signalProcess(pid, 'SIGKILL');
    const deadline = Date.now() + 30_000;
    while ((await readFile(join(this.dir, 'exit-status'), 'utf8').catch(() => undefined)) === undefined) {
      if (Date.now() > deadline) throw new BrokerProvisioningFailed(`The local Kafka broker (pid ${pid}) did not die on SIGKILL`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Starts a killed broker again with the same identity, ports and data; resolves once it answers. */
  async restart(timeoutMs = 60_000): Promise<void> {
    await writeFile(join(this.dir, 'restart'), '');
    const deadline = Date.now() + 30_000;
    while ((await readFile(join(this.dir, 'exit-status'), 'utf8').catch(() => undefined)) !== undefined) {
      if (Date.now() > deadline) throw new BrokerProvisioningFailed('The local Kafka watchdog did not restart the broker');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.waitUntilReady(timeoutMs);
  }

  /** The last lines of the broker's log and console output, for error messages. */
  async logTail(lines = 30): Promise<string> {
    const parts: string[] = [];
    for (const file of [join(this.dir, 'logs', 'server.log'), join(this.dir, 'console.log')]) {
      const text = await readFile(file, 'utf8').catch(() => '');
      if (text.trim() !== '') parts.push(`--- ${file}\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`);
    }
    return parts.length > 0 ? parts.join('\n') : '(no output)';
  }

  /** SIGTERM, SIGKILL after the grace period, then the directory is removed. Safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      // The unref'd watchdog alone would let Node exit in the middle of this wait, dropping the caller's
      // continuation (and, under jest, its exit code): hold the event loop until the broker is gone.
      this.watchdog.ref();
      signalGroup(this.watchdogPid, 'SIGTERM', false);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), this.stopGraceMs);
      });
      try {
        if ((await Promise.race([this.exited, graceOver])) === 'timeout') {
          signalGroup(this.watchdogPid, 'SIGKILL', true);
          await this.exited;
        }
      } finally {
        clearTimeout(timer);
      }
      await rm(this.dir, { recursive: true, force: true });
    })();
    return this.stopping;
  }
}

/**
 * Writes the broker's logging configuration, WARN and up to `logs/server.log` plus the one INFO line worth having
 * ("Kafka Server started"), in the form its release reads; returns the JVM option that names it.
 */
export async function writeLoggingConfig(dir: string, release: KafkaRelease): Promise<string> {
  const serverLog = join(dir, 'logs', 'server.log');
  const pattern = '[%d] %p %m (%c)%n';
  if (release.logging === 'log4j2') {
    const file = join(dir, 'log4j2.properties');
    await writeFile(
      file,
      toProperties({
        status: 'warn',
        'appender.file.type': 'File',
        'appender.file.name': 'file',
        'appender.file.fileName': serverLog,
        'appender.file.layout.type': 'PatternLayout',
        'appender.file.layout.pattern': pattern,
        'rootLogger.level': 'WARN',
        'rootLogger.appenderRef.file.ref': 'file',
        'logger.started.name': 'kafka.server.KafkaRaftServer',
        'logger.started.level': 'INFO',
      }),
    );
    return `-Dlog4j2.configurationFile=${file}`;
  }
  const file = join(dir, 'log4j.properties');
  await writeFile(
    file,
    toProperties({
      'log4j.rootLogger': 'WARN, file',
      'log4j.appender.file': 'org.apache.log4j.FileAppender',
      'log4j.appender.file.File': serverLog,
      'log4j.appender.file.layout': 'org.apache.log4j.PatternLayout',
      'log4j.appender.file.layout.ConversionPattern': pattern,
      'log4j.logger.kafka.server.KafkaRaftServer': 'INFO',
    }),
  );
  return `-Dlog4j.configuration=file:${file}`;
}

const USER = /^[A-Za-z0-9_-]+$/;

/** The listeners, TLS and SASL settings of a secured broker; writes its PEM files and the storage tool's SCRAM arguments. */
async function securedProperties(
  dir: string,
  listeners: BrokerListeners,
  controllerPort: number,
  secured: SecuredListenerOptions,
): Promise<Record<string, string>> {
  for (const user of [...secured.scramUsers, ...secured.plainUsers]) {
    if (!USER.test(user.name) || !USER.test(user.password)) throw new BrokerProvisioningFailed(`broker user names and passwords take letters, digits, '-' and '_': ${user.name}`);
  }
  await writeFile(join(dir, 'broker.pem'), secured.brokerKeyAndChain, { mode: 0o600 });
  await writeFile(join(dir, 'client-ca.pem'), secured.clientCa);
  await writeFile(join(dir, 'format-args'), secured.scramUsers.map((u) => `--add-scram=SCRAM-SHA-512=[name=${u.name},password=${u.password}]\n`).join(''), { mode: 0o600 });
  const plainUsers = secured.plainUsers.map((u) => ` user_${u.name}="${u.password}"`).join('');
  return {
    listeners: `PLAINTEXT://${listeners.plaintext},SASL_SSL://${listeners.saslSsl},SSL://${listeners.ssl},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${listeners.plaintext},SASL_SSL://${listeners.saslSsl},SSL://${listeners.ssl}`,
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL',
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': join(dir, 'broker.pem'),
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': join(dir, 'client-ca.pem'),
    'listener.name.ssl.ssl.client.auth': 'required',
    'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN,OAUTHBEARER',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_ssl.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required${plainUsers};`,
    // Without a validator callback handler, Kafka accepts unsecured (alg "none") JWTs: enough to test token files.
    'listener.name.sasl_ssl.oauthbearer.sasl.jaas.config': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
  };
}

/** Signals the watchdog alone (it passes SIGTERM on) or its whole process group; gone already is fine. */
function signalGroup(watchdogPid: number, signal: NodeJS.Signals, wholeGroup: boolean): void {
  signalProcess(wholeGroup ? -watchdogPid : watchdogPid, signal);
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The text of a Java properties file. */
export function toProperties(entries: Readonly<Record<string, string>>): string {
  // Java properties read a backslash as an escape.
  return Object.entries(entries)
    .map(([key, value]) => `${key}=${value.replace(/\\/g, '\\\\')}\n`)
    .join('');
}
