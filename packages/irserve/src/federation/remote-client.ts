import { Pool, errors as undiciErrors } from 'undici';
import { HOPS_HEADER } from '../core/hops.js';
import type { Logger } from 'pino';
import { IrserveError, isPassedThroughCode } from '../errors.js';
import { REQUEST_ID_HEADER } from '../core/request-id.js';
import { TIMEOUT_HEADER } from '../core/request-deadline.js';
import { timeoutError } from '../util/deadline.js';
import { abortSignalOf, reasonOf, type Abortable } from '../util/abort-scope.js';
import { backoffDelay, sleep } from '../util/backoff.js';

export interface RemoteClientOptions {
  /** Base URL of the remote instance, e.g. `http://gpu-1:8000`. */
  endpoint: string;
  apiKey: string | undefined;
  /** Seconds one attempt may take. */
  timeoutSeconds: number;
  /** Retries after the first attempt (connection errors, 5xx and timeouts only). */
  retries: number;
  logger: Logger;
  /** Keep-alive connections to the remote. */
  connections?: number;
}

export interface RemoteCallOptions {
  requestId?: string | undefined;
  /** Import hops so far (loop protection), sent as `x-irserve-hops`. */
  hops?: number;
  /** Overrides the client's retries (discovery probes use 0). */
  retries?: number;
  /**
   * The caller's deadline (`Date.now()` milliseconds): each attempt is cut to the time left,
   * which the remote receives as `x-request-timeout`; no retry starts past it (ERR_TIMEOUT).
   */
  deadline?: number | undefined;
  /**
   * Aborts when the caller stops waiting (its client left): the attempt in flight is cut (the
   * remote sees its client leave and drops the work) and no retry starts; the call rejects with
   * the reason. Never counted against the remote's reachability.
   */
  signal?: Abortable | undefined;
}

/** Milliseconds left before `deadline`; throws ERR_TIMEOUT naming `what` when none are. */
export function timeLeft(deadline: number | undefined, what: string): number | undefined {
  if (deadline === undefined) return undefined;
  const left = deadline - Date.now();
  if (left <= 0) throw timeoutError(what);
  return left;
}

class RetryableError extends Error {}

/**
 * HTTP client for one remote instance: keep-alive pool (undici), bearer key, per-attempt
 * timeout, retries with capped exponential backoff and jitter for connection errors, 5xx and
 * timeouts; 4xx answers are never retried. Errors name the remote.
 */
export class RemoteClient {
  readonly endpoint: string;
  readonly #pool: Pool;
  readonly #options: RemoteClientOptions;
  /** Set while the remote refuses connections; requests fail fast until a probe succeeds. */
  #unreachableSince: number | undefined;
  #probe: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: RemoteClientOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
    this.#options = options;
    this.#pool = new Pool(this.endpoint, {
      connections: options.connections ?? 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
    });
  }

  /** GET a JSON document. */
  get(path: string, options: RemoteCallOptions = {}): Promise<unknown> {
    return this.#withRetries('GET', path, undefined, options);
  }

  /** POST a JSON body and return the JSON answer. */
  post(path: string, body: unknown, options: RemoteCallOptions = {}): Promise<unknown> {
    return this.#withRetries('POST', path, JSON.stringify(body), options);
  }

  /** When the remote became unreachable, or undefined while it answers. */
  get unreachableSince(): number | undefined {
    return this.#unreachableSince;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#probe);
    await this.#pool.close();
  }

  async #withRetries(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    options: RemoteCallOptions,
  ): Promise<unknown> {
    const retries = options.retries ?? this.#options.retries;
    const { signal } = options;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw reasonOf(signal);
      if (this.#unreachableSince !== undefined) {
        const since = new Date(this.#unreachableSince).toISOString();
        throw new IrserveError(
          'ERR_UPSTREAM',
          `remote ${this.endpoint} is unreachable (since ${since}); retrying in the background`,
          { details: { remote: this.endpoint } },
        );
      }
      try {
        return await this.#attempt(method, path, body, options);
      } catch (error) {
        // A cut of our own making says nothing about the remote.
        if (signal?.aborted) throw reasonOf(signal);
        if (error instanceof ConnectionError) this.#markUnreachable(error);
        if (!(error instanceof RetryableError) || attempt >= retries)
          throw this.#finalError(error, path);
        this.#options.logger.debug(
          { path, attempt, reason: error.message },
          'retrying remote call',
        );
        await sleep(backoffDelay(attempt), signal);
      }
    }
  }

  async #attempt(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    options: RemoteCallOptions,
  ): Promise<unknown> {
    const left = timeLeft(options.deadline, `remote ${this.endpoint}${path}`);
    const ownMs = this.#options.timeoutSeconds * 1000;
    const timeoutMs = left === undefined ? ownMs : Math.min(ownMs, left);
    const headers = this.#headers(left, body !== undefined, options);
    let response;
    try {
      response = await this.#pool.request({
        method,
        path,
        body,
        headers,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(options.signal ? { signal: abortSignalOf(options.signal) } : {}),
      });
    } catch (error) {
      if (
        error instanceof undiciErrors.HeadersTimeoutError ||
        error instanceof undiciErrors.BodyTimeoutError
      ) {
        if (timeoutMs < ownMs) throw timeoutError(`remote ${this.endpoint}${path}`);
        throw new RetryableError(`timeout after ${this.#options.timeoutSeconds} s`, {
          cause: new TimeoutMarker(),
        });
      }
      throw new ConnectionError((error as Error).message);
    }
    return this.#read(response.statusCode, await response.body.text(), path);
  }

  /** The headers of an attempt: hops, the time left, the key and the request id passed on. */
  #headers(
    left: number | undefined,
    hasBody: boolean,
    options: RemoteCallOptions,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      [HOPS_HEADER]: String((options.hops ?? 0) + 1),
    };
    if (left !== undefined) headers[TIMEOUT_HEADER] = (left / 1000).toFixed(3);
    if (hasBody) headers['content-type'] = 'application/json';
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey.trim()}`;
    if (options.requestId) headers[REQUEST_ID_HEADER] = options.requestId;
    return headers;
  }

  /** The answer's JSON, or the error its status says: retried for 5xx, passed on for 4xx. */
  #read(status: number, text: string, path: string): unknown {
    if (status === 504 && errorCode(text) === 'ERR_TIMEOUT')
      throw timeoutError(`remote ${this.endpoint}${path}`);
    if (status >= 500) throw new RetryableError(`HTTP ${status}: ${errorMessage(text)}`);
    if (status >= 400) throw new RemoteRejection(status, errorMessage(text), errorCode(text));
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new IrserveError(
        'ERR_UPSTREAM',
        `remote ${this.endpoint} answered ${path} with invalid JSON: ${text.slice(0, 120)}`,
      );
    }
  }

  #finalError(error: unknown, path: string): IrserveError {
    if (error instanceof IrserveError) return error;
    if (error instanceof RemoteRejection) {
      // The remote's own 4xx keeps its status class: a bad request stays a bad request.
      const code = error.status === 401 ? 'ERR_UPSTREAM' : (error.code ?? 'ERR_BAD_REQUEST');
      const safe = isPassedThroughCode(code) ? code : 'ERR_BAD_REQUEST';
      return new IrserveError(safe, `remote ${this.endpoint}${path}: ${error.message}`, {
        details: { remote: this.endpoint },
      });
    }
    const timedOut = error instanceof Error && error.cause instanceof TimeoutMarker;
    return new IrserveError(
      timedOut ? 'ERR_UPSTREAM_TIMEOUT' : 'ERR_UPSTREAM',
      `remote ${this.endpoint}${path} failed: ${(error as Error).message}`,
      {
        details: { remote: this.endpoint },
      },
    );
  }

  /** Marks the remote unreachable and probes `/ping` until it answers (logged once each way). */
  #markUnreachable(error: Error): void {
    if (this.#unreachableSince !== undefined || this.#closed) return;
    this.#unreachableSince = Date.now();
    this.#options.logger.warn(
      { reason: error.message },
      'remote unreachable: its services fail fast until it returns',
    );
    const probe = async () => {
      try {
        await this.#attempt('GET', '/ping', undefined, {});
        this.#unreachableSince = undefined;
        this.#options.logger.info('remote reachable again');
      } catch {
        if (!this.#closed) this.#probe = setTimeout(() => void probe(), 500);
      }
    };
    this.#probe = setTimeout(() => void probe(), 200);
  }
}

class TimeoutMarker {}

/** The remote refused or dropped the connection (as opposed to answering slowly or with 5xx). */
class ConnectionError extends RetryableError {}

class RemoteRejection extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

function parseError(text: string): { error?: unknown; code?: unknown } {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

function errorMessage(text: string): string {
  const { error } = parseError(text);
  return typeof error === 'string' ? error : text.slice(0, 200) || 'no body';
}

function errorCode(text: string): string | undefined {
  const { code } = parseError(text);
  return typeof code === 'string' ? code : undefined;
}

export { HOPS_HEADER, MAX_HOPS } from '../core/hops.js';
