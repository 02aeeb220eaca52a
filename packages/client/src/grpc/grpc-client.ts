/**
 * The gRPC client (Node only): RoutIR's `routir.v1.Routir` service plus irserve's Fuse and
 * DecomposeQuery, with the HTTP client's surface, deadline, cancellation, retries and errors.
 */
import {
  Metadata,
  credentials,
  loadPackageDefinition,
  type Client,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { load } from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import { withRetries, type CallScope } from '../call-scope.js';
import type { IrserveClient, RawContent } from '../client.js';
import { CLIENT_ERROR_CODES, IrserveClientError } from '../errors.js';
import type * as Api from '../generated/api.js';
import { DEFAULT_TIMEOUT_MS, type CallOptions, type ClientOptions } from '../options.js';
import { withRanked } from '../ranked.js';
import { requestMessage, responseJson } from './codec.js';
import { errorOfStatus } from './status.js';

export interface GrpcClientOptions extends ClientOptions {
  /** `host:port`, or `grpc://host:port` / `grpcs://host:port` (TLS). */
  target: string;
  /** TLS; default: true exactly when the target says `grpcs://`. */
  tls?: boolean;
  /** Largest message sent or received, in MiB (default 64, the server's default). */
  maxMessageMb?: number;
}

const PROTO_PATH = fileURLToPath(new URL('../../proto/routir.proto', import.meta.url));
const LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

type Unary = (
  message: unknown,
  metadata: Metadata,
  options: { deadline: number },
  callback: (error: ServiceError | null, response?: Record<string, unknown>) => void,
) => { cancel(): void };

function parseTarget(target: string): { address: string; tls: boolean } {
  const match = /^(grpcs?):\/\/(.+)$/i.exec(target);
  if (match)
    return { address: match[2]!.replace(/\/+$/, ''), tls: match[1]!.toLowerCase() === 'grpcs' };
  if (/^[a-z]+:\/\//i.test(target))
    throw new TypeError(`target: use host:port, grpc:// or grpcs://, got ${target}`);
  return { address: target, tls: false };
}

/**
 * A client for one irserve (or RoutIR) server over gRPC.
 *
 * @example
 * const client = new GrpcClient({ target: '127.0.0.1:50051', apiKey: process.env.IRSERVE_API_KEY });
 * const { scores } = await client.search({ service: 'bm25', query: 'wing flutter', limit: 10 });
 * await client.close();
 */
export class GrpcClient implements IrserveClient {
  readonly #options: GrpcClientOptions;
  readonly #address: string;
  readonly #tls: boolean;
  #client: Promise<Client> | undefined;
  #closed = false;

  constructor(options: GrpcClientOptions) {
    const { address, tls } = parseTarget(options.target);
    this.#options = options;
    this.#address = address;
    this.#tls = options.tls ?? tls;
  }

  ping(options?: CallOptions) {
    return this.#call<Api.PingResponse>('Ping', {}, options);
  }
  avail(options?: CallOptions) {
    return this.#call<Api.AvailResponse>('Avail', {}, options);
  }
  async search(request: Api.SearchRequest, options?: CallOptions) {
    return withRanked(await this.#call<Api.SearchResponse>('Search', request, options));
  }
  score(request: Api.ScoreRequest, options?: CallOptions) {
    return this.#call<Api.ScoreResponse>('Score', request, options);
  }
  async fuse(request: Api.FuseRequest, options?: CallOptions) {
    return withRanked(await this.#call<Api.FuseResponse>('Fuse', request, options));
  }
  decomposeQuery(request: Api.DecomposeQueryRequest, options?: CallOptions) {
    return this.#call<Api.DecomposeQueryResponse>('DecomposeQuery', request, options);
  }
  async pipeline(request: Api.PipelineRequest, options?: CallOptions) {
    for (const field of ['explain', 'limit'] as const) {
      if (request[field] !== undefined)
        throw new IrserveClientError(
          CLIENT_ERROR_CODES.ERR_NOT_SUPPORTED,
          `pipeline: "${field}" is not carried by gRPC (RoutIR's message has no such field); use the HTTP client`,
        );
    }
    return withRanked(await this.#call<Api.PipelineResponse>('Pipeline', request, options));
  }
  content(request: Api.ContentRequest, options?: CallOptions) {
    return this.#call<Api.ContentResponse>('Content', request, options);
  }

  async contentBytes(
    request: { collection: string; id: string; view?: string },
    options?: CallOptions,
  ): Promise<RawContent> {
    const answer = await this.content(request, options);
    if (answer.data === undefined)
      return {
        bytes: new TextEncoder().encode(answer.text ?? ''),
        contentType: 'text/plain; charset=utf-8',
      };
    if (answer.data.length !== 1)
      throw new IrserveClientError(
        'ERR_BAD_REQUEST',
        `${request.collection}/${request.id} has ${answer.data.length} parts; use content() for items with several parts`,
      );
    const part = answer.data[0]!;
    return {
      bytes: Uint8Array.from(atob(part.data), (c) => c.charCodeAt(0)),
      contentType: part.mime,
    };
  }

  async health(): Promise<Api.HealthResponse> {
    throw new IrserveClientError(
      CLIENT_ERROR_CODES.ERR_NOT_SUPPORTED,
      'health: the gRPC service has no health RPC; use ping() or the HTTP client',
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    if (client) (await client.catch(() => undefined))?.close();
  }

  #connect(): Promise<Client> {
    if (this.#closed)
      throw new IrserveClientError(CLIENT_ERROR_CODES.ERR_NETWORK, 'client is closed');
    this.#client ??= load(PROTO_PATH, LOADER_OPTIONS).then((definition) => {
      const routir = (loadPackageDefinition(definition).routir as GrpcObject).v1 as GrpcObject;
      const Routir = routir.Routir as ServiceClientConstructor;
      const bytes = Math.floor((this.#options.maxMessageMb ?? 64) * 1024 * 1024);
      return new Routir(
        this.#address,
        this.#tls ? credentials.createSsl() : credentials.createInsecure(),
        { 'grpc.max_receive_message_length': bytes, 'grpc.max_send_message_length': bytes },
      );
    });
    return this.#client;
  }

  #call<T>(rpc: string, body: object, options: CallOptions = {}): Promise<T> {
    const message = requestMessage(rpc, body as Record<string, unknown>);
    return withRetries(
      async (scope) => responseJson(rpc, await this.#attempt(rpc, message, options, scope)) as T,
      options,
      this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      this.#options.retry,
    );
  }

  async #attempt(
    rpc: string,
    message: Record<string, unknown>,
    options: CallOptions,
    scope: CallScope,
  ): Promise<Record<string, unknown>> {
    const client = await this.#connect();
    const metadata = new Metadata();
    if (this.#options.apiKey)
      metadata.set('authorization', `Bearer ${this.#options.apiKey.trim()}`);
    if (options.requestId) metadata.set('x-request-id', options.requestId);
    const method = (client as unknown as Record<string, Unary>)[rpc]!;
    return new Promise((resolve, reject) => {
      const call = method.call(
        client,
        message,
        metadata,
        { deadline: scope.deadline ?? Infinity },
        (error, response) => {
          scope.signal.removeEventListener('abort', onAbort);
          if (error)
            reject(scope.signal.aborted ? scope.stopError(error) : errorOfStatus(error, rpc));
          else resolve(response ?? {});
        },
      );
      const onAbort = () => call.cancel();
      scope.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
