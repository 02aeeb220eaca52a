/**
 * The HTTP client: `fetch` only, so it runs in Node (>= 20) and in browsers alike.
 */
import { withRetries, type CallScope } from './call-scope.js';
import type { IrserveClient, RawContent } from './client.js';
import { CLIENT_ERROR_CODES, IrserveClientError } from './errors.js';
import type { BatchRequest, BatchResponse, Operations } from './generated/api.js';
import { DEFAULT_TIMEOUT_MS, type CallOptions, type ClientOptions } from './options.js';
import { withRanked } from './ranked.js';

export interface HttpClientOptions extends ClientOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  baseUrl: string;
  /** A `fetch` to use instead of the global one (tests, proxies, custom agents). */
  fetch?: typeof fetch;
  /** Extra headers sent with every call. */
  headers?: Record<string, string>;
}

type Operation = keyof Operations;
type RequestOf<O extends Operation> = Operations[O]['request'];
type ResponseOf<O extends Operation> = Operations[O]['response'];

const ROUTES = {
  ping: ['GET', '/ping'],
  health: ['GET', '/health'],
  avail: ['GET', '/avail'],
  search: ['POST', '/search'],
  score: ['POST', '/score'],
  fuse: ['POST', '/fuse'],
  decomposeQuery: ['POST', '/decompose_query'],
  pipeline: ['POST', '/pipeline'],
  content: ['POST', '/content'],
  batch: ['POST', '/batch'],
} as const satisfies Partial<Record<Operation, readonly [string, string]>>;

function retryAfterOf(response: Response): number | undefined {
  const value = Number(response.headers.get('retry-after'));
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The typed error of a non-2xx answer, from irserve's `{"error", "code", ...}` body. */
async function errorOf(response: Response): Promise<IrserveClientError> {
  const text = await response.text().catch(() => '');
  const init = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterOf(response),
  };
  try {
    const { error, code, ...details } = JSON.parse(text) as Record<string, unknown>;
    if (typeof code === 'string' && typeof error === 'string')
      return new IrserveClientError(code, error, { ...init, details });
    if (typeof error === 'string')
      return new IrserveClientError(`ERR_HTTP_${response.status}`, error, init);
  } catch {
    // Not JSON: a proxy's page, or not an irserve server.
  }
  return new IrserveClientError(
    response.status === 503 ? 'ERR_OVERLOADED' : CLIENT_ERROR_CODES.ERR_BAD_RESPONSE,
    `HTTP ${response.status}: ${text.slice(0, 200) || response.statusText}`,
    init,
  );
}

/**
 * A client for one irserve (or RoutIR) server over HTTP.
 *
 * @example
 * const client = new HttpClient({ baseUrl: 'http://127.0.0.1:8000', apiKey: process.env.IRSERVE_API_KEY });
 * const { scores } = await client.search({ service: 'bm25', query: 'wing flutter', limit: 10 });
 */
export class HttpClient implements IrserveClient {
  readonly #base: string;
  readonly #options: HttpClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: HttpClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`baseUrl: not a URL: ${JSON.stringify(options.baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`baseUrl: must be http:// or https://, got ${url.protocol}`);
    this.#base = url.href.replace(/\/+$/, '');
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  ping(options?: CallOptions) {
    return this.#call('ping', undefined, options);
  }
  health(options?: CallOptions) {
    return this.#call('health', undefined, options);
  }
  avail(options?: CallOptions) {
    return this.#call('avail', undefined, options);
  }
  async search(request: RequestOf<'search'>, options?: CallOptions) {
    return withRanked(await this.#call('search', request, options));
  }
  score(request: RequestOf<'score'>, options?: CallOptions) {
    return this.#call('score', request, options);
  }
  async fuse(request: RequestOf<'fuse'>, options?: CallOptions) {
    return withRanked(await this.#call('fuse', request, options));
  }
  decomposeQuery(request: RequestOf<'decomposeQuery'>, options?: CallOptions) {
    return this.#call('decomposeQuery', request, options);
  }
  async pipeline(request: RequestOf<'pipeline'>, options?: CallOptions) {
    return withRanked(await this.#call('pipeline', request, options));
  }
  content(request: RequestOf<'content'>, options?: CallOptions) {
    return this.#call('content', request, options);
  }
  /**
   * Several search, score, fuse or decompose_query calls in one request (irserve only). Each
   * body with a score map also gets `ranked`, its documents best first.
   */
  async batch(request: BatchRequest, options?: CallOptions): Promise<BatchResponse> {
    const answer = await this.#call('batch', request, options);
    const responses = answer.responses.map((item) => ({ ...item, body: withRanked(item.body) }));
    return { ...answer, responses };
  }

  async contentBytes(
    request: { collection: string; id: string; view?: string },
    options: CallOptions = {},
  ): Promise<RawContent> {
    const id = request.id.split('/').map(encodeURIComponent).join('/');
    const query = request.view ? `?view=${encodeURIComponent(request.view)}` : '';
    const path = `/content/${encodeURIComponent(request.collection)}/${id}${query}`;
    return this.#send(path, 'GET', undefined, options, async (response) => ({
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    }));
  }

  async close(): Promise<void> {}

  #call<O extends keyof typeof ROUTES>(
    operation: O,
    body: RequestOf<O>,
    options: CallOptions = {},
  ): Promise<ResponseOf<O>> {
    const [method, path] = ROUTES[operation];
    return this.#send(path, method, body, options, async (response) => {
      try {
        return (await response.json()) as ResponseOf<O>;
      } catch (error) {
        throw new IrserveClientError(CLIENT_ERROR_CODES.ERR_BAD_RESPONSE, `${path}: not JSON`, {
          status: response.status,
          cause: error,
        });
      }
    });
  }

  #send<T>(
    path: string,
    method: string,
    body: unknown,
    options: CallOptions,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const timeout = this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return withRetries(
      (scope) => this.#attempt(path, method, body, options, scope, read),
      options,
      timeout,
      this.#options.retry,
    );
  }

  async #attempt<T>(
    path: string,
    method: string,
    body: unknown,
    options: CallOptions,
    scope: CallScope,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.#options.headers,
    };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey.trim()}`;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}${path}`, {
        method,
        headers,
        signal: scope.signal,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      if (scope.signal.aborted) throw scope.stopError(error);
      throw new IrserveClientError(
        CLIENT_ERROR_CODES.ERR_NETWORK,
        `${method} ${this.#base}${path}: ${(error as Error).message}${causeText(error)}`,
        { cause: error },
      );
    }
    if (!response.ok) throw await errorOf(response);
    return read(response);
  }
}

function causeText(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message ?? 'unknown cause'})` : '';
}
