/**
 * The one HTTP client every API-backed engine uses: a keep-alive undici pool per base URL, a
 * bound on calls in flight, a deadline per attempt, retries of 408/409/429/5xx, timeouts and
 * connection failures (honouring `Retry-After`, capped), and errors that name the provider and
 * the service but never the key. Engines add only their wire format on top.
 */
import type { Logger } from 'pino';
import { Pool, errors as undiciErrors } from 'undici';
import { IrserveError } from '../../errors.js';
import { onAbort, reasonOf } from '../../util/abort-scope.js';
import { backoffDelay, sleep } from '../../util/backoff.js';
import { Limiter } from './limiter.js';
import { displayUrl, redact } from './redact.js';
import { retryAfterMs } from './retry-after.js';
import { upstreamMessage } from './upstream-message.js';

export interface ApiHttpOptions {
  /** Base URL; request paths are appended to its path (`http://host/v1` + `/embeddings`). */
  baseUrl: string;
  /** Named in every error, e.g. `Cohere rerank API`. */
  provider: string;
  /** The irserve service, named in every error. */
  service?: string | undefined;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey?: string | undefined;
  /** Extra request headers (their values are treated as secrets too). */
  headers?: Record<string, string> | undefined;
  /** Deadline of one attempt, from sending to the end of the body. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Longest wait a `Retry-After` may impose (default 10 s). */
  maxRetryWaitMs?: number | undefined;
  /** Calls in flight at once (default 8). */
  concurrency?: number | undefined;
  logger?: Logger | undefined;
}

/** HTTP statuses worth another attempt (the set the OpenAI SDKs retry). */
const RETRYABLE_STATUS = new Set([408, 409, 429]);

type FailureKind = 'timeout' | 'connection' | 'status' | 'body';

/** One failed attempt; only `retryable` ones are tried again. */
class AttemptFailure extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly retryable: boolean,
    readonly status?: number,
    readonly waitMs?: number,
  ) {
    super(message);
  }
}

export class ApiHttpClient {
  readonly provider: string;
  readonly #base: URL;
  readonly #pool: Pool;
  readonly #limiter: Limiter;
  readonly #options: ApiHttpOptions;
  readonly #secrets: string[];
  readonly #headers: Record<string, string>;

  constructor(options: ApiHttpOptions) {
    this.#options = options;
    this.provider = options.provider;
    this.#base = new URL(options.baseUrl);
    const concurrency = options.concurrency ?? 8;
    this.#limiter = new Limiter(concurrency);
    this.#pool = new Pool(this.#base.origin, {
      connections: concurrency,
      keepAliveTimeout: 30_000,
    });
    this.#secrets = [options.apiKey ?? '', ...Object.values(options.headers ?? {})];
    this.#headers = { ...options.headers, 'content-type': 'application/json' };
    if (options.apiKey) this.#headers.authorization = `Bearer ${options.apiKey.trim()}`;
  }

  /**
   * POSTs `body` as JSON to `path` (relative to the base URL) and returns the parsed answer.
   * Throws ERR_UPSTREAM_TIMEOUT when the last attempt timed out, ERR_UPSTREAM otherwise.
   * `signal` (the engine's batch signal: nobody waits any more) stops the call where it is:
   * queued for a slot, in flight (the connection is cut) or waiting to retry; it then rejects
   * with the signal's reason.
   *
   * @example
   * await client.postJson('/embeddings', { model: 'm', input: ['a'] });
   */
  postJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const url = this.url(path);
    const payload = JSON.stringify(body);
    return this.#limiter.run(() => this.#withRetries(url, payload, signal), signal);
  }

  /** The full URL of `path`: the base URL's path, then `path`, then the base URL's query. */
  url(path: string): URL {
    const url = new URL(this.#base);
    url.pathname = `${this.#base.pathname.replace(/\/+$/, '')}${path}`;
    return url;
  }

  /** An ERR_UPSTREAM for an answer that parsed but is wrong (count, shape, range). */
  invalidAnswer(path: string, problem: string): IrserveError {
    return this.#error('ERR_UPSTREAM', this.url(path), `answered with ${problem}`, {});
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #withRetries(url: URL, payload: string, signal?: AbortSignal): Promise<unknown> {
    const { retries, maxRetryWaitMs = 10_000, logger } = this.#options;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(url, payload, signal);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        if (!error.retryable || attempt >= retries) throw this.#finalError(error, url, attempt + 1);
        const waitMs =
          error.waitMs === undefined
            ? backoffDelay(attempt)
            : Math.min(error.waitMs, maxRetryWaitMs);
        logger?.warn(
          { provider: this.provider, path: url.pathname, attempt, status: error.status, waitMs },
          `retrying model API call: ${this.#redact(error.message)}`,
        );
        await sleep(waitMs, signal);
      }
    }
  }

  async #attempt(url: URL, payload: string, signal?: AbortSignal): Promise<unknown> {
    if (signal?.aborted) throw reasonOf(signal);
    const { timeoutMs } = this.#options;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const stopListening = signal && onAbort(signal, () => controller.abort());
    try {
      const response = await this.#pool.request({
        method: 'POST',
        path: `${url.pathname}${url.search}`,
        body: payload,
        headers: this.#headers,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      return parseAnswer(response.statusCode, response.headers, text);
    } catch (error) {
      if (signal?.aborted) throw reasonOf(signal);
      if (error instanceof AttemptFailure) throw error;
      if (controller.signal.aborted || isUndiciTimeout(error))
        throw new AttemptFailure(`did not answer within ${timeoutMs / 1000} s`, 'timeout', true);
      throw new AttemptFailure(
        `connection failed: ${(error as Error).message}`,
        'connection',
        true,
      );
    } finally {
      clearTimeout(timer);
      stopListening?.();
    }
  }

  #finalError(failure: AttemptFailure, url: URL, attempts: number): IrserveError {
    const after = attempts > 1 ? ` (after ${attempts} attempts)` : '';
    const code = failure.kind === 'timeout' ? 'ERR_UPSTREAM_TIMEOUT' : 'ERR_UPSTREAM';
    const status = failure.status === undefined ? {} : { upstream_status: failure.status };
    return this.#error(code, url, `${failure.message}${after}`, status);
  }

  #error(
    code: 'ERR_UPSTREAM' | 'ERR_UPSTREAM_TIMEOUT',
    url: URL,
    what: string,
    details: Record<string, unknown>,
  ): IrserveError {
    const service = this.#options.service ? `service "${this.#options.service}": ` : '';
    const message = this.#redact(`${service}${this.provider} at ${displayUrl(url)} ${what}`);
    return new IrserveError(code, message, { details: { provider: this.provider, ...details } });
  }

  #redact(text: string): string {
    return redact(text, this.#secrets);
  }
}

/** Turns one HTTP answer into its JSON value, or an AttemptFailure saying what went wrong. */
function parseAnswer(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): unknown {
  if (status >= 200 && status < 300) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AttemptFailure(
        `answered with invalid JSON: ${upstreamMessage(text, 120)}`,
        'body',
        false,
        status,
      );
    }
  }
  const retryable = RETRYABLE_STATUS.has(status) || status >= 500;
  const wait = retryable ? retryAfterMs(headers) : undefined;
  throw new AttemptFailure(
    `answered HTTP ${status}: ${upstreamMessage(text)}`,
    'status',
    retryable,
    status,
    wait,
  );
}

function isUndiciTimeout(error: unknown): boolean {
  return (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  );
}
