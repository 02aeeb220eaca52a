/**
 * `@irserve/client`: a typed client for irserve (and RoutIR) servers. This entry uses `fetch`
 * only and runs in browsers; the gRPC client is the Node-only entry `@irserve/client/grpc`.
 *
 * @example
 * import { HttpClient } from '@irserve/client';
 * const client = new HttpClient({ baseUrl: 'http://127.0.0.1:8000' });
 * const result = await client.pipeline({ pipeline: '{bm25, dense}RRF%50', query: 'q' });
 * result.ranked[0] // { id, score, rank: 1 }: the best document (result.scores is the wire map)
 */
export { HttpClient, type HttpClientOptions } from './http-client.js';
export type { IrserveClient, RawContent } from './client.js';
export { rankScores, withRanked, type Ranked, type RankedDoc } from './ranked.js';
export { IrserveClientError, CLIENT_ERROR_CODES, isRetryable } from './errors.js';
export type { IrserveClientErrorInit } from './errors.js';
export type { CallOptions, ClientOptions, RetryOptions } from './options.js';
export * from './generated/api.js';
