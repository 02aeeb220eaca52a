/**
 * Errors of `@irserve/client`: one class, carrying the server's stable `code` (docs/errors.md)
 * or one of the client's own codes below, so callers branch on `error.code`, never on text.
 */

/** Codes the client itself raises (the server's codes all come from its catalog). */
export const CLIENT_ERROR_CODES = {
  /** The call's deadline (`timeoutMs`) passed, retries included. */
  ERR_TIMEOUT: 'ERR_TIMEOUT',
  /** The caller's AbortSignal fired. */
  ERR_ABORTED: 'ERR_ABORTED',
  /** No answer: connection refused or reset, DNS failure, TLS failure. */
  ERR_NETWORK: 'ERR_NETWORK',
  /** An answer that is not irserve's (not JSON, or JSON of the wrong shape). */
  ERR_BAD_RESPONSE: 'ERR_BAD_RESPONSE',
  /** The transport cannot do this call (gRPC has no /health, /batch or explain). */
  ERR_NOT_SUPPORTED: 'ERR_NOT_SUPPORTED',
} as const;

export interface IrserveClientErrorInit {
  /** HTTP status (gRPC: the HTTP status the server's code maps to, when known). */
  status?: number | undefined;
  /** The `x-request-id` of the failed call: quote it when reading the server's logs. */
  requestId?: string | undefined;
  /** Seconds the server asked to wait (503 `Retry-After`). */
  retryAfter?: number | undefined;
  /** Extra fields of the error body (`fields`, `column`, ...). */
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
}

/**
 * A failed call. `code` is the server's (`ERR_SERVICE_NOT_FOUND`, `ERR_PIPELINE_SYNTAX`, ...)
 * or the client's (`ERR_TIMEOUT`, `ERR_ABORTED`, `ERR_NETWORK`, ...).
 *
 * @example
 * try { await client.search({ service: 'bm25', query: 'q' }); }
 * catch (error) { if (error instanceof IrserveClientError && error.code === 'ERR_OVERLOADED') ... }
 */
export class IrserveClientError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, init: IrserveClientErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'IrserveClientError';
    this.code = code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.details = init.details ?? {};
  }
}

/** Whether a failed call may succeed if sent again: the server was overloaded or restarting. */
export function isRetryable(error: unknown): boolean {
  return (
    error instanceof IrserveClientError &&
    (error.status === 503 || error.code === 'ERR_OVERLOADED' || error.code === 'ERR_SHUTTING_DOWN')
  );
}
