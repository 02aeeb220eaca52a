// Generated from the irserve OpenAPI document by packages/client/scripts/generate-types.ts.
// Do not edit: change the route schemas in packages/irserve and regenerate.

/** The API version the types were generated from. */
export const API_VERSION = '1.0.0';

export interface AvailResponse {
  /** search services */
  search: string[];
  /** score (rerank) services */
  score: string[];
  /** fusion services */
  fuse: string[];
  /** query decomposition services */
  decompose_query: string[];
  /** collection name to its views */
  collection: {
    [key: string]: {
      /** view name to kind */
      views: {
        [key: string]: 'text' | 'bytes';
      };
      /** the view used when a request names none */
      default: string | null;
    };
  };
  /** collection names (the older RoutIR shape) */
  content: string[];
  /** alias name to pipeline source */
  pipeline_aliases: {
    [key: string]: string;
  };
  /** score service to its input kind */
  score_view_kinds: {
    [key: string]: 'text' | 'bytes';
  };
  /** search service to the collection it indexes, where its config names one (irserve extension) */
  search_collections?: {
    [key: string]: string;
  };
  /** path of POST /batch (irserve extension) */
  batch_endpoint?: string;
  /** the gRPC port, when gRPC is served */
  grpc_port?: number;
  /** listed services whose back-end is unreachable now: they answer ERR_UPSTREAM until it is back (irserve extension) */
  unavailable?: string[];
  [key: string]: unknown;
}

export interface BatchRequest {
  requests: {
    endpoint: 'search' | 'score' | 'fuse' | 'decompose_query';
    body: {
      [key: string]: unknown;
    };
  }[];
}

export interface BatchResponse {
  /** one per call, in request order */
  responses: {
    /** the HTTP status this call would have had alone */
    status: number;
    /** its response or error body */
    body: {
      [key: string]: unknown;
    };
  }[];
}

export interface ContentRequest {
  collection: string;
  id: string | number;
  view?: string | null;
  [key: string]: unknown;
}

export interface ContentResponse {
  collection: string;
  id: string;
  /** the view that answered */
  view: string;
  kind: 'text' | 'bytes';
  /** text views: the document text */
  text?: string;
  /** text views: the title, when the document has one */
  title?: string;
  /** when the collection maps ids to languages */
  language?: string;
  /** bytes views: one entry per part */
  data?: {
    /** base64 of the part */
    data: string;
    /** its MIME type */
    mime: string;
  }[];
  cached: boolean;
}

export interface DecomposeQueryRequest {
  service: string;
  query: string;
  limit?: number;
  timeout?: number;
  [key: string]: unknown;
}

export interface DecomposeQueryResponse {
  /** true when the answer came from the cache */
  cached: boolean;
  /** always true on a processed request (RoutIR compatibility) */
  processed: boolean;
  /** the query, echoed */
  query: string;
  /** the service that produced the result */
  service: string;
  /** Unix time in seconds (fractional) when the result was computed */
  timestamp: number;
  /** the sub-queries */
  queries: string[];
}

export interface Error {
  /** a readable message naming the field or service at fault */
  error: string;
  /** stable error code (docs/errors.md) */
  code:
    | 'ERR_BAD_REQUEST'
    | 'ERR_SERVICE_NOT_FOUND'
    | 'ERR_COLLECTION_NOT_FOUND'
    | 'ERR_DOC_NOT_FOUND'
    | 'ERR_PIPELINE_SYNTAX'
    | 'ERR_PIPELINE_PLAN'
    | 'ERR_UNAUTHORIZED'
    | 'ERR_FORBIDDEN'
    | 'ERR_NOT_FOUND'
    | 'ERR_METHOD_NOT_ALLOWED'
    | 'ERR_BODY_TOO_LARGE'
    | 'ERR_HEADERS_TOO_LARGE'
    | 'ERR_REQUEST_TIMEOUT'
    | 'ERR_UNSUPPORTED_MEDIA_TYPE'
    | 'ERR_CLIENT_CLOSED'
    | 'ERR_OVERLOADED'
    | 'ERR_SHUTTING_DOWN'
    | 'ERR_UPSTREAM'
    | 'ERR_UPSTREAM_TIMEOUT'
    | 'ERR_TIMEOUT'
    | 'ERR_ENGINE'
    | 'ERR_INTERNAL'
    | 'ERR_CONFIG';
  [key: string]: unknown;
}

export interface FuseRequest {
  service: string;
  query?: string;
  scores: {
    [key: string]: number;
  }[];
  timeout?: number;
  [key: string]: unknown;
}

export interface FuseResponse {
  /** true when the answer came from the cache */
  cached: boolean;
  /** always true on a processed request (RoutIR compatibility) */
  processed: boolean;
  /** the query, echoed */
  query: string;
  /** the service that produced the result */
  service: string;
  /** Unix time in seconds (fractional) when the result was computed */
  timestamp: number;
  /** document id to score; rank by value (key order is not significant) */
  scores: {
    [key: string]: number;
  };
}

export interface HealthResponse {
  /** degraded while a cache store, an imported remote or an engine's back-end is unreachable */
  status: 'ok' | 'degraded';
  /** whether this replica should get traffic (the HTTP status is 503 when false) */
  ready: boolean;
  /** starting until collections and engines have started; draining once close began */
  lifecycle: 'starting' | 'ready' | 'draining';
  cache_stores: {
    /** the store, password removed */
    url: string;
    /** up, down or connecting */
    state: string;
    /** ISO time of the last state change */
    since: string;
  }[];
  server_imports: {
    endpoint: string;
    /** up, connecting or unreachable */
    state: string;
    /** services mirrored from it */
    services: number;
    transport?: string;
    last_error?: string;
    [key: string]: unknown;
  }[];
  /** engines over an external back-end (@irserve/backends), each with its state */
  engines?: {
    /** the service */
    service: string;
    /** the back-end's state: up, down or connecting */
    state: string;
    [key: string]: unknown;
  }[];
  /** with ?service=: that service (the HTTP status is 503 when it is unavailable) */
  service?: {
    name: string;
    /** false while the service's back-end is unreachable */
    available: boolean;
  };
}

export interface PingResponse {
  status: 'pong';
}

export interface PipelineRequest {
  pipeline: string;
  query: string;
  collection?: string;
  runtime_kwargs?: {
    [key: string]: {
      [key: string]: unknown;
    };
  };
  explain?: boolean;
  limit?: number;
  timeout?: number;
}

export interface PipelineResponse {
  /** true when the answer came from the cache */
  cached: boolean;
  /** always true on a processed request (RoutIR compatibility) */
  processed: boolean;
  /** the query, echoed */
  query: string;
  /** the service of the last stage */
  service: string;
  /** Unix time in seconds (fractional) when the result was computed */
  timestamp: number;
  /** document id to score; rank by value (key order is not significant) */
  scores: {
    [key: string]: number;
  };
  /** the pipeline expression, echoed */
  pipeline: string;
  /** the collection, echoed when given */
  collection?: string;
  /** the sub-queries, when a query expander ran */
  expanded_queries?: string[];
  /** present when the request asked for "explain": true */
  explain?: {
    /** the canonical form of the pipeline */
    plan: string;
    pipeline_cache: 'hit' | 'miss' | 'off';
    /** one entry per stage run, in completion order */
    stages: {
      /** the stage label */
      stage: string;
      service: string;
      role: 'search' | 'rerank' | 'merge' | 'expand';
      /** the query the stage ran with (a sub-query under an expander) */
      query: string;
      /** documents in (rerank: candidates; merge: sum over the inputs) */
      input: number;
      /** documents out after the %N cut (expand: sub-queries) */
      output: number;
      /** whether the service answered from its cache */
      cached: boolean;
      /** wall time of the stage in milliseconds, content fetching included */
      ms: number;
      /** what a search, rerank or merge stage handed on, best first (ties by ascending id), ranks from 1 */
      results?: {
        id: string;
        score: number;
        rank: number;
      }[];
    }[];
    /** the request id (x-request-id), also in the log lines of this request */
    request_id?: string;
  };
}

export interface ScoreRequest {
  service: string;
  query: string;
  passages: (string | string[])[];
  timeout?: number;
  [key: string]: unknown;
}

export interface ScoreResponse {
  /** true when the answer came from the cache */
  cached: boolean;
  /** always true on a processed request (RoutIR compatibility) */
  processed: boolean;
  /** the query, echoed */
  query: string;
  /** the service that produced the result */
  service: string;
  /** Unix time in seconds (fractional) when the result was computed */
  timestamp: number;
  /** one score per passage, in request order */
  scores: number[];
  meta: {
    /** how many passages were scored */
    n_passages: number;
  };
}

export interface SearchRequest {
  service: string;
  query: string;
  limit?: number;
  subset?: string;
  timeout?: number;
  [key: string]: unknown;
}

export interface SearchResponse {
  /** true when the answer came from the cache */
  cached: boolean;
  /** always true on a processed request (RoutIR compatibility) */
  processed: boolean;
  /** the query, echoed */
  query: string;
  /** the service that produced the result */
  service: string;
  /** Unix time in seconds (fractional) when the result was computed */
  timestamp: number;
  /** document id to score; rank by value (key order is not significant) */
  scores: {
    [key: string]: number;
  };
}

/** Every operation of the API by operationId. */
export interface Operations {
  getMetrics: { method: 'GET'; path: '/metrics'; request: undefined; response: unknown };
  getUi: { method: 'GET'; path: '/ui'; request: undefined; response: unknown };
  getUiPath: { method: 'GET'; path: '/ui/{path}'; request: undefined; response: unknown };
  ping: { method: 'GET'; path: '/ping'; request: undefined; response: PingResponse };
  health: { method: 'GET'; path: '/health'; request: undefined; response: HealthResponse };
  avail: { method: 'GET'; path: '/avail'; request: undefined; response: AvailResponse };
  search: { method: 'POST'; path: '/search'; request: SearchRequest; response: SearchResponse };
  query: { method: 'POST'; path: '/query'; request: SearchRequest; response: SearchResponse };
  score: { method: 'POST'; path: '/score'; request: ScoreRequest; response: ScoreResponse };
  fuse: { method: 'POST'; path: '/fuse'; request: FuseRequest; response: FuseResponse };
  decomposeQuery: {
    method: 'POST';
    path: '/decompose_query';
    request: DecomposeQueryRequest;
    response: DecomposeQueryResponse;
  };
  batch: { method: 'POST'; path: '/batch'; request: BatchRequest; response: BatchResponse };
  content: { method: 'POST'; path: '/content'; request: ContentRequest; response: ContentResponse };
  contentRaw: {
    method: 'GET';
    path: '/content/{collection}/{id}';
    request: undefined;
    response: Blob;
  };
  pipeline: {
    method: 'POST';
    path: '/pipeline';
    request: PipelineRequest;
    response: PipelineResponse;
  };
  getMcp: { method: 'GET'; path: '/mcp'; request: undefined; response: unknown };
  deleteMcp: { method: 'DELETE'; path: '/mcp'; request: unknown; response: unknown };
  postMcp: { method: 'POST'; path: '/mcp'; request: unknown; response: unknown };
  openapi: { method: 'GET'; path: '/openapi.json'; request: undefined; response: unknown };
  postV1Embeddings: { method: 'POST'; path: '/v1/embeddings'; request: unknown; response: unknown };
  getV1Models: { method: 'GET'; path: '/v1/models'; request: undefined; response: unknown };
  getV1ModelsPath: {
    method: 'GET';
    path: '/v1/models/{path}';
    request: undefined;
    response: unknown;
  };
  postV1Rerank: { method: 'POST'; path: '/v1/rerank'; request: unknown; response: unknown };
  postV2Rerank: { method: 'POST'; path: '/v2/rerank'; request: unknown; response: unknown };
  postEmbed: { method: 'POST'; path: '/embed'; request: unknown; response: unknown };
  postEmbedSparse: { method: 'POST'; path: '/embed_sparse'; request: unknown; response: unknown };
  postRerank: { method: 'POST'; path: '/rerank'; request: unknown; response: unknown };
}
