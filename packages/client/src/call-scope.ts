/**
 * One call's deadline and cancellation as a single AbortSignal, its retry loop, and the waits
 * between attempts (which the signal cuts short). Shared by the HTTP and gRPC clients.
 */
import { CLIENT_ERROR_CODES, IrserveClientError, isRetryable } from './errors.js';
import type { CallOptions, RetryOptions } from './options.js';
import { retrySettings } from './options.js';

export interface CallScope {
  /** Fires when the caller aborts or the deadline passes. */
  signal: AbortSignal;
  /** The error to throw once `signal` has fired (ERR_TIMEOUT or ERR_ABORTED). */
  stopError(cause?: unknown): IrserveClientError;
  /** Absolute deadline (ms since epoch), or undefined for none. */
  deadline: number | undefined;
  dispose(): void;
}

/** Opens the scope of one call; `dispose()` it when the call is over. */
export function openScope(options: CallOptions, defaultTimeoutMs: number): CallScope {
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  let timedOut = false;
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs)
      : undefined;
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  return {
    signal: controller.signal,
    deadline: timeoutMs > 0 ? Date.now() + timeoutMs : undefined,
    stopError: (cause) =>
      timedOut
        ? new IrserveClientError(
            CLIENT_ERROR_CODES.ERR_TIMEOUT,
            `no answer within ${timeoutMs} ms`,
            {
              cause,
            },
          )
        : new IrserveClientError(CLIENT_ERROR_CODES.ERR_ABORTED, 'the call was aborted', {
            cause: options.signal?.reason ?? cause,
          }),
    dispose: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

function wait(ms: number, scope: CallScope): Promise<void> {
  return new Promise((resolve, reject) => {
    if (scope.signal.aborted) return reject(scope.stopError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(scope.stopError());
    };
    const timer = setTimeout(() => {
      scope.signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    scope.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails with an error that is not a 503, or the retries are
 * spent. The wait is the server's Retry-After when it sent one, else an exponential backoff
 * with jitter; both are capped by `maxDelayMs`.
 *
 * @example
 * await withRetries((scope) => fetchOnce(scope), { timeoutMs: 5000 }, 60_000, { retries: 2 });
 */
export async function withRetries<T>(
  attempt: (scope: CallScope) => Promise<T>,
  options: CallOptions,
  defaultTimeoutMs: number,
  clientRetry: RetryOptions | undefined,
): Promise<T> {
  const settings = retrySettings(clientRetry, options.retry);
  const scope = openScope(options, defaultTimeoutMs);
  try {
    for (let tries = 0; ; tries += 1) {
      try {
        return await attempt(scope);
      } catch (error) {
        if (scope.signal.aborted) throw scope.stopError(error);
        if (!isRetryable(error) || tries >= settings.retries) throw error;
        const hinted = (error as IrserveClientError).retryAfter;
        const backoff = settings.initialDelayMs * 2 ** tries * (0.5 + Math.random() / 2);
        await wait(
          Math.min(hinted !== undefined ? hinted * 1000 : backoff, settings.maxDelayMs),
          scope,
        );
      }
    }
  } finally {
    scope.dispose();
  }
}
