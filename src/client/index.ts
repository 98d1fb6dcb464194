/**
 * `sluice/client`: a typed client of a Sluice node's management API, on undici. See docs/client-and-cli.md.
 */
export { SluiceClient } from './client';
export type { EventOptions, MetricsOptions, RequestOptions } from './client';
export type { ClientOptions, TlsOptions } from './transport';
export { SluiceApiError } from './errors';
export type { ErrorName } from './errors';
export { InvalidClientRequest, ServerUnreachable, SluiceError, UnexpectedResponse } from '../errors';
export { CountResult, KeyValueQueries, QueryResult, SessionQueries, StoreRef, VersionedKeyValueQueries, WindowQueries } from './store';
export type {
  KeyValueRecord,
  QueryOptions,
  SessionRecord,
  Time,
  TimestampedKeyValueRecord,
  TimestampedWindowRecord,
  VersionedKeyValueRecord,
  WindowedKey,
  WindowRecord,
} from './store';
export { EventSubscription } from './events';
export type { DataOf, EventPosition, SluiceEvent, SubscriptionEvent } from './events';
export type * from './types';
