/**
 * The Sluice process: the topology registry, the local instances, the HTTP management API and the gRPC peer
 * service, wired together. Start order: listen (so that the endpoints are known), then OpenTelemetry's SDK when the
 * OTEL_* variables turn it on (its resource names the node by its endpoint), then create and start the instances
 * with `application.server` and `grpc.endpoint` set to them. Stop order: close the instances (they write their
 * checkpoints; static members stay in their groups), then the peer service, then the HTTP server, then the SDK.
 */

import * as os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { PeerClient, startPeerServer, type PeerServer } from '../cluster';
import { IllegalState } from '../errors';
import { QueryService } from '../query';
import { buildServer } from '../server/app';
import type { StoreQueries } from '../server/context';
import { instanceOrThrow } from '../server/lookup';
import { applicationMetrics } from '../server/plugins/prometheus';
import { timelineEntryJson } from '../server/representations/timeline';
import type { ConfigValue } from '../streams/runtime/streams-config';
import type { StreamsInstanceOptions } from '../streams/runtime/instance-parts';
import { processMetricsRegistry } from '../streams/metrics/process-metrics';
import { streamsFamilies } from '../streams/metrics/prometheus';
import { SLUICE_VERSION } from '../streams/runtime/sluice-version';
import { checkExposure, exposureNotice } from './config/exposure';
import type { HostConfig } from './config/host-config';
import { checkPeerExposure, loadPeerSecurity, peerExposureNotice } from './config/peers';
import { loadServerTls } from './config/server-tls';
import { InstanceManager } from './instances/instance-manager';
import { streamsInstanceFactory, type RuntimeFactory } from './instances/runtime';
import { componentLoggers, rootLogger } from './logging/loggers';
import { loadTopologyModules } from './module-loader';
import { nodeMemoryBudget } from './node-memory';
import type { Telemetry } from './telemetry/telemetry-sdk';
import { recordStartRatio, telemetrySettings as readTelemetrySettings } from './telemetry/telemetry-settings';
import type { TopologyDefinition } from './topology-definition';
import { TopologyRegistry } from './topology-registry';

export interface SluiceHostOptions {
  config: HostConfig;
  /** Registered before the configured modules (the demo's examples, tests' topologies). */
  topologies?: readonly TopologyDefinition[];
  /** The root logger; default: log.format's lines on standard output. Each component logs with a child of it. */
  logger?: Logger;
  createRuntime?: RuntimeFactory;
  /** Where the OTEL_* variables are read (telemetry/telemetry-settings.ts); default the process' environment. */
  env?: NodeJS.ProcessEnv;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

export class SluiceHost {
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly instances: InstanceManager,
    /** `http(s)://host:port` of the management API, as clients reach it. */
    readonly url: string,
    /** `application.server` of this node. */
    readonly applicationServer: string,
    private readonly app: FastifyInstance,
    private readonly peerServer: PeerServer,
    private readonly logger: Logger,
    private readonly telemetry: Telemetry | undefined,
  ) {}

  static async start(options: SluiceHostOptions): Promise<SluiceHost> {
    const { config } = options;
    checkExposure(config.server);
    checkPeerExposure(config);
    const peerSecurity = loadPeerSecurity(config.peers);
    const telemetrySettings = readTelemetrySettings(options.env ?? process.env);
    const traced = telemetrySettings?.traces === true;
    const logger = options.logger ?? rootLogger(config.log, 1, process.env, traced);
    const loggers = componentLoggers(logger, config.log.components);
    const registry = new TopologyRegistry();
    options.topologies?.forEach((definition) => registry.register(definition));
    loadTopologyModules(registry, config.topologies);
    let streamsConfig: Record<string, ConfigValue> = { ...config.streams };
    // Known once the SDK has started (after listen): the instances are created after it.
    let traceRecords: StreamsInstanceOptions['traceRecords'];
    const instances = new InstanceManager({
      topologies: registry,
      streamsConfig: () => streamsConfig,
      createRuntime:
        options.createRuntime ??
        streamsInstanceFactory(
          loggers.streams,
          loggers.kafka,
          nodeMemoryBudget(config.memory?.budget, logger),
          () => traceRecords,
        ),
      logger,
      closeTimeoutMs: config.shutdownTimeoutMs,
    });
    // Unknown topologies and bad instance configurations are reported before anything listens.
    for (const spec of config.instances) instances.check(spec);
    // One client for the queries' calls to other nodes and the cluster's timeline: they share its channels.
    const peers = new PeerClient({ security: peerSecurity, logger: loggers.peers });
    let queryService: QueryService | undefined;
    const queries: StoreQueries = {
      stream: (applicationId, store, body, options) => {
        if (queryService === undefined) throw new IllegalState('the node is still starting');
        return queryService.stream(applicationId, store, body, options);
      },
    };
    const app = await buildServer({
      instances,
      queries,
      peers,
      logger: loggers.http,
      access: {
        users: config.server.users,
        allowPlaintextPasswords: config.server.allowPlaintextPasswords,
        tokens: config.server.tokens,
        jwt: config.server.jwt,
        failedLogins: config.server.failedLogins,
        headless: config.server.headless,
      },
      https: config.server.tls === undefined ? undefined : loadServerTls(config.server.tls),
      cors: config.server.cors,
      events: config.server.sse,
      timeouts: config.server.timeouts,
      maxConnections: config.server.maxConnections,
      version: SLUICE_VERSION,
      node: { streamsConfig: () => streamsConfig },
      tracing: traced,
    });
    await app.listen({ host: config.server.host, port: config.server.port });
    const port = (app.server.address() as AddressInfo).port;
    const advertisedHost =
      config.server.advertisedHost ?? (WILDCARD_HOSTS.has(config.server.host) ? os.hostname() : config.server.host);
    const applicationServer = String(config.streams['application.server'] ?? `${advertisedHost}:${port}`);

    let peerServer: PeerServer | undefined;
    let telemetry: Telemetry | undefined;
    try {
      if (telemetrySettings !== undefined) {
        // Loaded only now: a node without telemetry never loads the SDK.
        const { startTelemetry } = await import('./telemetry/telemetry-sdk');
        telemetry = startTelemetry(telemetrySettings, {
          instanceId: applicationServer,
          metrics: { streams: () => streamsFamilies(applicationMetrics(instances)), process: processMetricsRegistry },
          logger,
        });
        if (traced) traceRecords = { startRatio: recordStartRatio(telemetrySettings), ...(telemetry.workerTracer ? { workerTracer: telemetry.workerTracer } : {}) };
        const { traces, metrics, sampler, ratio } = telemetrySettings;
        logger.info({ traces, metrics, sampler, ...(sampler.endsWith('traceidratio') ? { ratio } : {}) }, 'OpenTelemetry export on');
      }
      const service = new QueryService({
        applications: (applicationId) => instances.get(applicationId)?.view,
        localServer: applicationServer,
        peers,
        clusterSecret: peerSecurity?.secret,
      });
      peerServer = await startPeerServer({
        host: config.server.host,
        port: config.server.grpcPort,
        handler: service,
        security: peerSecurity,
        logger: loggers.peers,
        node: () => ({ server: applicationServer, applications: instances.list().map((instance) => instance.id) }),
        timeline: (applicationId) => instanceOrThrow(instances, applicationId).view?.timeline().map(timelineEntryJson) ?? [],
      });
      queryService = service;
      streamsConfig = {
        'grpc.endpoint': `${advertisedHost}:${peerServer.port}`,
        ...config.streams,
        'application.server': applicationServer,
      };
      for (const spec of config.instances) instances.create(spec);
    } catch (error) {
      await peerServer?.close(0);
      await app.close();
      await telemetry?.shutdown();
      throw error;
    }
    instances.startAll();
    const url = `${config.server.tls === undefined ? 'http' : 'https'}://${advertisedHost.includes(':') ? `[${advertisedHost}]` : advertisedHost}:${port}`;
    logger.info({ url, applicationServer, grpcPort: peerServer.port, instances: instances.list().map((i) => i.id) }, 'Sluice started');
    const notice = exposureNotice({ ...config.server, port });
    if (notice) logger[notice.level]({ host: config.server.host }, notice.message);
    const peerNotice = peerExposureNotice(config);
    if (peerNotice) logger.warn({ host: config.server.host, grpcPort: peerServer.port }, peerNotice);
    return new SluiceHost(instances, url, applicationServer, app, peerServer, logger, telemetry);
  }

  /** Graceful shutdown; calling it again returns the same promise. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.logger.info('Sluice stopping');
      await this.instances.closeAll();
      await this.peerServer.close(1000);
      await this.app.close();
      // Last: the spans and metrics of the shutdown itself are exported too.
      await this.telemetry?.shutdown();
      this.logger.info('Sluice stopped');
    })();
    return this.stopping;
  }
}
