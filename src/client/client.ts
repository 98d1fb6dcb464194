/**
 * The typed client of a Sluice node's management API (`sluice/client`). One method per route of routes.ts; store
 * queries through `store(app, store)`; events as async iterators. Errors: SluiceApiError (the server's error body),
 * or InvalidClientRequest, ServerUnreachable, UnexpectedResponse from the catalogue.
 */

import { InvalidClientRequest } from '../errors';
import { applicationIdProblem } from '../streams/runtime/application-id';
import { EventSubscription, type EventPosition } from './events';
import type { JsonAnswers, RouteName } from './routes';
import { StoreRef, type QueryOptions } from './store';
import { Transport, type CallOptions, type ClientOptions } from './transport';
import type { DeployRequest, LagHistory, StopRequest, StoreQueryRequest } from './types';

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface MetricsOptions extends RequestOptions {
  /** Leave out metrics with no measurement or zero. */
  filterEmpty?: boolean;
  /** Narrow to a group, or to a group and a metric name. */
  group?: string;
  name?: string;
}

export interface EventOptions {
  /** Aborting it ends the subscription, as close() does. */
  signal?: AbortSignal;
  /** Where an earlier subscription left off (its `position`): the node sends what came after, if it still has it. */
  resume?: EventPosition;
}

/** The id, checked as the server checks it (it would answer 400 InvalidApplicationId). */
function applicationId(id: string): string {
  const problem = typeof id === 'string' ? applicationIdProblem(id) : 'it is not a string';
  if (problem !== undefined) throw new InvalidClientRequest(`invalid application id '${String(id)}': ${problem}`);
  return id;
}

function nonEmpty<S extends string>(what: string, value: S): S {
  if (typeof value !== 'string' || value === '') throw new InvalidClientRequest(`${what} must be a non-empty string`);
  return value;
}

export class SluiceClient {
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** The node's base URL. */
  get url(): string {
    return this.transport.url;
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.transport.close();
  }

  private get<N extends keyof JsonAnswers & RouteName>(route: N, id?: string, options: RequestOptions & CallOptions = {}): Promise<JsonAnswers[N]> {
    const params = id === undefined ? options.params : { applicationId: applicationId(id), ...options.params };
    return this.transport.json<JsonAnswers[N]>(route, { ...options, params });
  }

  // Streams instances of the node (`/api/v1/streams`).

  /** Application ids of the node's instances. */
  instances(options?: RequestOptions): Promise<string[]> {
    return this.get('instances', undefined, options);
  }

  instance(id: string, options?: RequestOptions): Promise<JsonAnswers['instance']> {
    return this.get('instance', id, options);
  }

  /** Threads and their tasks. */
  status(id: string, options?: RequestOptions): Promise<JsonAnswers['status']> {
    return this.get('status', id, options);
  }

  config(id: string, options?: RequestOptions): Promise<JsonAnswers['config']> {
    return this.get('config', id, options);
  }

  offsets(id: string, options?: RequestOptions): Promise<JsonAnswers['offsets']> {
    return this.get('offsets', id, options);
  }

  /** The lag the node sampled over the last 15 minutes, hour (the server's default) or day. */
  lagHistory(id: string, options: RequestOptions & { range?: LagHistory['range'] } = {}): Promise<JsonAnswers['lagHistory']> {
    return this.get('lagHistory', id, { ...options, query: options.range === undefined ? undefined : { range: options.range } });
  }

  /**
   * The node's rebalances (their causes as the node knows them, the tasks moved) and restores, oldest first; with
   * `scope: 'cluster'`, every node's of the application, merged, and which nodes answered.
   */
  timeline(id: string, options: RequestOptions & { scope?: 'local' | 'cluster' } = {}): Promise<JsonAnswers['timeline']> {
    return this.get('timeline', id, { ...options, query: options.scope === undefined ? undefined : { scope: options.scope } });
  }

  metrics(id: string, options: MetricsOptions = {}): Promise<JsonAnswers['metrics']> {
    const query = options.filterEmpty === true ? { filter_empty: 'true' } : undefined;
    if (options.name !== undefined) {
      const params = { group: nonEmpty('group', options.group ?? ''), name: nonEmpty('name', options.name) };
      return this.get('metricsNamed', id, { ...options, params, query });
    }
    if (options.group !== undefined) return this.get('metricsOfGroup', id, { ...options, params: { group: nonEmpty('group', options.group) }, query });
    return this.get('metrics', id, { ...options, query });
  }

  /** A metric's current value as the server prints it: a number, `NaN` before any measurement, or text. */
  metricValue(id: string, group: string, name: string, options: RequestOptions = {}): Promise<string> {
    const params = { applicationId: applicationId(id), group: nonEmpty('group', group), name: nonEmpty('name', name) };
    return this.transport.call('metricValue', { ...options, params });
  }

  /** The instance's metrics in the Prometheus text exposition format 0.0.4. */
  prometheus(id: string, options: Omit<MetricsOptions, 'group' | 'name'> = {}): Promise<string> {
    const query = { format: 'prometheus', ...(options.filterEmpty === true ? { filter_empty: 'true' } : {}) };
    return this.transport.call('prometheus', { ...options, params: { applicationId: applicationId(id) }, query });
  }

  /** The instance's topology DAG. */
  instanceTopology(id: string, options?: RequestOptions): Promise<JsonAnswers['instanceTopology']> {
    return this.get('instanceTopology', id, options);
  }

  /** Store partitions: offsets, lag, last restoration. */
  stores(id: string, options?: RequestOptions): Promise<JsonAnswers['stores']> {
    return this.get('stores', id, options);
  }

  /** This node's entry of the application record. */
  metadata(id: string, options?: RequestOptions): Promise<JsonAnswers['metadata']> {
    return this.get('metadata', id, options);
  }

  /** Event types that can be subscribed to. */
  subscriptions(id: string, options?: RequestOptions): Promise<string[]> {
    return this.get('subscriptions', id, options);
  }

  /** Restarts the instance; the answer has the state at that moment, the restart goes on after it. */
  restart(id: string, options: RequestOptions = {}): Promise<JsonAnswers['restart']> {
    return this.transport.json('restart', { ...options, params: { applicationId: applicationId(id) } });
  }

  /**
   * Stops the instance; with cleanup its local state directory is removed, with leaveGroup its static members leave
   * the consumer group (their partitions move at once). It stays listed, STOPPED.
   */
  stop(id: string, options: RequestOptions & StopRequest = {}): Promise<JsonAnswers['stop']> {
    for (const flag of ['cleanup', 'leaveGroup'] as const) {
      if (options[flag] !== undefined && typeof options[flag] !== 'boolean') throw new InvalidClientRequest(`${flag} must be true or false`);
    }
    // leaveGroup only when asked: a node older than the option refuses the field.
    const body = { cleanup: options.cleanup === true, ...(options.leaveGroup === true ? { leaveGroup: true } : {}) };
    return this.transport.json('stop', { signal: options.signal, params: { applicationId: applicationId(id) }, body });
  }

  /** Starts a new local instance of a registered topology; answers its application id. */
  deploy(request: DeployRequest, options: RequestOptions = {}): Promise<JsonAnswers['deploy']> {
    nonEmpty('type', request.type);
    if (request.name !== undefined) applicationId(request.name);
    return this.transport.json('deploy', { ...options, body: request });
  }

  /** Stops the instance, removes its local state and forgets it. */
  remove(id: string, options: RequestOptions = {}): Promise<JsonAnswers['remove']> {
    return this.transport.json('remove', { ...options, params: { applicationId: applicationId(id) } });
  }

  /** The instance's events of one type, as an async iterator; see EventSubscription. */
  events<T extends string>(id: string, type: T, options: EventOptions = {}): EventSubscription<T> {
    return new EventSubscription(this.transport, applicationId(id), nonEmpty('event type', type), options.signal, options.resume);
  }

  // Applications across the cluster (`/api/v1/applications`).

  applications(options?: RequestOptions): Promise<string[]> {
    return this.get('applications', undefined, options);
  }

  /** Every process of the application: endpoints, assignments, stores. */
  application(id: string, options?: RequestOptions): Promise<JsonAnswers['application']> {
    return this.get('application', id, options);
  }

  topology(id: string, options?: RequestOptions): Promise<JsonAnswers['topology']> {
    return this.get('topology', id, options);
  }

  /** A store of the application, to query: `store(app, name).keyValue<string, number>().get('kafka')`. */
  store(id: string, name: string, options: QueryOptions = {}): StoreRef {
    return new StoreRef(this.transport, applicationId(id), nonEmpty('store name', name), options);
  }

  /** A query body sent as it is (no checks but the server's): the full result. */
  query(id: string, store: string, request: StoreQueryRequest, options: RequestOptions = {}): Promise<JsonAnswers['query']> {
    return this.transport.json('query', { ...options, params: { applicationId: applicationId(id), name: nonEmpty('store name', store) }, body: request });
  }

  /** A query body sent as it is: only the records of the successful parts. */
  queryRecords(id: string, store: string, request: StoreQueryRequest, options: RequestOptions = {}): Promise<JsonAnswers['queryRecords']> {
    const params = { applicationId: applicationId(id), name: nonEmpty('store name', store) };
    return this.transport.json('queryRecords', { ...options, params, body: request });
  }

  // The node.

  topologies(options?: RequestOptions): Promise<JsonAnswers['topologies']> {
    return this.get('topologies', undefined, options);
  }

  /** The health report; a DOWN node answers it too (with HTTP 503). */
  health(options?: RequestOptions): Promise<JsonAnswers['health']> {
    return this.get('health', undefined, options);
  }
}
