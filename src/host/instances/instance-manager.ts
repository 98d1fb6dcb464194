/**
 * The instances of this process: created from the configuration or deployed through the API, each from a
 * registered topology and an effective configuration (topology defaults, then the host's streams configuration,
 * then the instance's own), started, restarted, stopped and removed. Implements what the HTTP layer asks of it.
 */

import type { Logger } from 'pino';
import { ApplicationExists, ConfigException, UnknownApplication } from '../../errors';
import type { DeployRequest, InstanceRegistry, LocalInstance, StopOptions, TopologyInfo } from '../../server/context';
import { checkApplicationId } from '../../streams/runtime/application-id';
import { parseStreamsConfig, type ConfigValue, type StreamsConfig } from '../../streams/runtime/streams-config';
import type { InstanceSpec } from '../config/host-config';
import type { TopologyDefinition } from '../topology-definition';
import type { TopologyRegistry } from '../topology-registry';
import { topologyInfo } from '../topology-registry';
import { ManagedInstance } from './managed-instance';
import type { RuntimeFactory } from './runtime';

export interface InstanceManagerOptions {
  topologies: TopologyRegistry;
  /**
   * The host's streams configuration (bootstrap servers, state dir, application.server, ...); read when an instance
   * is created, since the endpoints are known only once the node listens.
   */
  streamsConfig: () => Readonly<Record<string, ConfigValue>>;
  createRuntime: RuntimeFactory;
  logger: Logger;
  closeTimeoutMs: number;
}

export class InstanceManager implements InstanceRegistry {
  private readonly instances = new Map<string, ManagedInstance>();

  constructor(private readonly options: InstanceManagerOptions) {}

  /**
   * The topology and effective configuration of an instance, validated (every key and type) and completed with
   * the defaults the config resource shows. Throws the catalogue's errors; creates nothing.
   */
  check(spec: InstanceSpec): { definition: TopologyDefinition; config: StreamsConfig } {
    const definition = this.options.topologies.resolve(spec.topology, spec.version);
    const merged: Record<string, ConfigValue> = { ...definition.defaults, ...this.options.streamsConfig(), ...spec.config };
    if (spec.applicationId !== undefined) merged['application.id'] = spec.applicationId;
    // Without an id of its own, an instance takes its topology's first alias (or short name), as Azkarra does.
    merged['application.id'] = checkApplicationId(String(merged['application.id'] ?? defaultApplicationId(definition.name, definition.aliases)));
    return { definition, config: parseStreamsConfig(merged) };
  }

  /** Creates (without starting) an instance. */
  create(spec: InstanceSpec): ManagedInstance {
    const { definition, config } = this.check(spec);
    if (this.instances.has(config.applicationId)) throw new ApplicationExists(config.applicationId);
    const source = this.options.topologies.workerSource(definition, config.values);
    const instance = new ManagedInstance({
      topologyInfo: topologyInfo(definition),
      topology: definition.build(config.values),
      ...(source ? { topologySource: source } : {}),
      description: spec.description ?? null,
      config: config.values,
      createRuntime: this.options.createRuntime,
      logger: this.options.logger,
      closeTimeoutMs: this.options.closeTimeoutMs,
    });
    this.instances.set(instance.id, instance);
    return instance;
  }

  startAll(): void {
    for (const instance of this.instances.values()) instance.start();
  }

  list(): LocalInstance[] {
    return [...this.instances.values()];
  }

  get(id: string): ManagedInstance | undefined {
    return this.instances.get(id);
  }

  restart(id: string): LocalInstance {
    const instance = this.required(id);
    instance.restart();
    return instance;
  }

  async stop(id: string, options: StopOptions): Promise<LocalInstance> {
    const instance = this.required(id);
    await instance.stop(options);
    return instance;
  }

  async remove(id: string): Promise<void> {
    await this.required(id).stop({ cleanup: true, leaveGroup: false });
    this.instances.delete(id);
  }

  async deploy(request: DeployRequest): Promise<string> {
    const config = { ...request.config };
    if (request.name !== undefined) config['application.id'] ??= request.name;
    const instance = this.create({ topology: request.type, version: request.version, description: request.description, config });
    instance.start();
    return instance.id;
  }

  topologies(): TopologyInfo[] {
    return this.options.topologies.list();
  }

  /** Closes every instance (process shutdown): they write their checkpoints; static members stay in their groups. */
  async closeAll(): Promise<void> {
    const results = await Promise.allSettled([...this.instances.values()].map((instance) => instance.close()));
    for (const result of results) {
      if (result.status === 'rejected') this.options.logger.warn({ err: result.reason }, 'closing an instance failed');
    }
  }

  private required(id: string): ManagedInstance {
    const instance = this.instances.get(id);
    if (instance === undefined) throw new UnknownApplication(id);
    return instance;
  }
}

/** `word-count` from aliases ['word-count'], else `WordCount` from `io.sluice.examples.WordCount`. */
function defaultApplicationId(name: string, aliases: readonly string[] | undefined): string {
  const candidate = aliases?.[0] ?? name.split('.').pop() ?? name;
  const id = candidate.replace(/[^A-Za-z0-9._-]/g, '-');
  if (id === '') throw new ConfigException(`no application.id for an instance of '${name}'`);
  return id;
}
