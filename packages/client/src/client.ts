/** What every transport's client offers: one method per operation of the API. */
import type {
  AvailResponse,
  ContentRequest,
  ContentResponse,
  DecomposeQueryRequest,
  DecomposeQueryResponse,
  FuseRequest,
  FuseResponse,
  HealthResponse,
  PingResponse,
  PipelineRequest,
  PipelineResponse,
  ScoreRequest,
  ScoreResponse,
  SearchRequest,
  SearchResponse,
} from './generated/api.js';
import type { CallOptions } from './options.js';
import type { Ranked } from './ranked.js';

/** A document's raw content (`GET /content/:collection/:id`): bytes and their content type. */
export interface RawContent {
  bytes: Uint8Array;
  contentType: string;
}

export interface IrserveClient {
  /** Liveness; never needs the key. */
  ping(options?: CallOptions): Promise<PingResponse>;
  /** The services, collections and pipeline aliases the server has. */
  avail(options?: CallOptions): Promise<AvailResponse>;
  /** The answer as sent, plus `ranked`: its documents best first (see ranked.ts). */
  search(request: SearchRequest, options?: CallOptions): Promise<Ranked<SearchResponse>>;
  score(request: ScoreRequest, options?: CallOptions): Promise<ScoreResponse>;
  /** The answer as sent, plus `ranked`: its documents best first. */
  fuse(request: FuseRequest, options?: CallOptions): Promise<Ranked<FuseResponse>>;
  decomposeQuery(
    request: DecomposeQueryRequest,
    options?: CallOptions,
  ): Promise<DecomposeQueryResponse>;
  /** The answer as sent, plus `ranked`: its documents best first. */
  pipeline(request: PipelineRequest, options?: CallOptions): Promise<Ranked<PipelineResponse>>;
  /** A document as JSON: `text` for text views, base64 `data` parts for bytes views. */
  content(request: ContentRequest, options?: CallOptions): Promise<ContentResponse>;
  /** A document's raw bytes (an image, a text file) with its content type. */
  contentBytes(
    request: { collection: string; id: string; view?: string },
    options?: CallOptions,
  ): Promise<RawContent>;
  /** Readiness (HTTP only: gRPC has no health RPC and throws ERR_NOT_SUPPORTED). */
  health(options?: CallOptions): Promise<HealthResponse>;
  /** Releases connections (gRPC channels); the client is unusable afterwards. */
  close(): Promise<void>;
}
