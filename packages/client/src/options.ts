/** Options of a client and of one call. */

export interface RetryOptions {
  /** Attempts after the first, on 503 only (overloaded, shutting down). Default 3. */
  retries?: number;
  /** First backoff in ms when the server sends no Retry-After; doubles per attempt. Default 100. */
  initialDelayMs?: number;
  /** Longest wait before a retry in ms (a longer Retry-After is cut to it). Default 10,000. */
  maxDelayMs?: number;
}

export interface CallOptions {
  /** Cancels the call (and any wait between retries). */
  signal?: AbortSignal;
  /** Deadline of the whole call, retries included, in ms; default the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Sent as `x-request-id`; the server logs it and relays it to imported remotes. */
  requestId?: string;
  /** Overrides the client's retry settings for this call. */
  retry?: RetryOptions;
}

export interface ClientOptions {
  /** Bearer key (`Authorization: Bearer <key>`); the server's IRSERVE_API_KEY. */
  apiKey?: string;
  /** Default deadline of a call in ms (default 60,000; 0: none). */
  timeoutMs?: number;
  retry?: RetryOptions;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Retry settings with defaults filled in. */
export function retrySettings(...layers: (RetryOptions | undefined)[]): Required<RetryOptions> {
  const merged = Object.assign({}, ...layers) as RetryOptions;
  return {
    retries: merged.retries ?? 3,
    initialDelayMs: merged.initialDelayMs ?? 100,
    maxDelayMs: merged.maxDelayMs ?? 10_000,
  };
}
