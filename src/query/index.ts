/** The query layer: interactive queries over the state stores of the whole cluster (compatibility file, section 5). */
export { QueryService, type ExecuteOptions, type QueryServiceOptions } from './query-service';
export { parseQueryRequest } from './parse';
export type { FailurePart, QueryOptions, QueryRequest, QueryStatus, StoreQueryResponse, SuccessPart } from './types';
