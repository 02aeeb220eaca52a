/**
 * The error catalog: every failure irserve reports has a stable code, an HTTP status and a gRPC
 * status, mapped here and nowhere else. `docs/errors.md` lists the same codes (a test checks).
 */

/** gRPC status codes used by the catalog (numeric values from the gRPC spec). */
export const GrpcStatus = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export const ERROR_CATALOG = {
  ERR_BAD_REQUEST: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary:
      'The request is malformed: a field is missing, has the wrong type, or is out of range.',
  },
  ERR_SERVICE_NOT_FOUND: {
    http: 400,
    grpc: GrpcStatus.NOT_FOUND,
    summary: 'No service of that name serves the requested role.',
  },
  ERR_COLLECTION_NOT_FOUND: {
    http: 400,
    grpc: GrpcStatus.NOT_FOUND,
    summary: 'No collection, or no view of it, has that name.',
  },
  ERR_DOC_NOT_FOUND: {
    http: 400,
    grpc: GrpcStatus.NOT_FOUND,
    summary: 'The collection has no document with that id.',
  },
  ERR_PIPELINE_SYNTAX: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'The pipeline expression does not parse; the message names the column.',
  },
  ERR_PIPELINE_PLAN: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary:
      'The pipeline parses but cannot run as written (wrong role, missing collection, bad runtime_kwargs).',
  },
  ERR_UNAUTHORIZED: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    summary: 'The bearer token is missing or wrong.',
  },
  ERR_FORBIDDEN: {
    http: 403,
    grpc: GrpcStatus.PERMISSION_DENIED,
    summary: 'The request comes from an origin or host that may not call this route (`/mcp`).',
  },
  ERR_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, summary: 'No route has that path.' },
  ERR_METHOD_NOT_ALLOWED: {
    http: 405,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'The route exists but not for that HTTP method.',
  },
  ERR_BODY_TOO_LARGE: {
    http: 413,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    summary: 'The request body is larger than `body_limit`.',
  },
  ERR_HEADERS_TOO_LARGE: {
    http: 431,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    summary: 'The request headers or URL are larger than the server accepts.',
  },
  ERR_REQUEST_TIMEOUT: {
    http: 408,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    summary:
      'The client did not send its whole request (headers and body) within `request_timeout`; the connection is closed.',
  },
  ERR_UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'The request body is not `application/json`.',
  },
  ERR_CLIENT_CLOSED: {
    http: 499,
    grpc: GrpcStatus.CANCELLED,
    summary:
      'The client went away before its answer (connection closed, call cancelled): its queued work was dropped. Nobody reads this answer; it is logged at debug level.',
  },
  ERR_OVERLOADED: {
    http: 503,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    summary: 'The service queue is full; retry after the `Retry-After` seconds.',
  },
  ERR_SHUTTING_DOWN: {
    http: 503,
    grpc: GrpcStatus.UNAVAILABLE,
    summary: 'The server is draining and accepts no new work.',
  },
  ERR_UPSTREAM: {
    http: 502,
    grpc: GrpcStatus.UNAVAILABLE,
    summary:
      'A remote instance behind a relay, or a model API behind an engine, failed or answered with an error.',
  },
  ERR_UPSTREAM_TIMEOUT: {
    http: 504,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    summary: 'A remote instance or a model API did not answer in time.',
  },
  ERR_TIMEOUT: {
    http: 504,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    summary:
      'The request did not finish before its deadline (`timeout`, `x-request-timeout`, a gRPC deadline or the service `timeout`).',
  },
  ERR_ENGINE: {
    http: 500,
    grpc: GrpcStatus.INTERNAL,
    summary: 'An engine failed or returned a result of the wrong shape.',
  },
  ERR_INTERNAL: {
    http: 500,
    grpc: GrpcStatus.INTERNAL,
    summary: 'An unexpected error inside irserve (a bug: please report it).',
  },
  ERR_CONFIG: {
    http: 500,
    grpc: GrpcStatus.INTERNAL,
    summary: 'The configuration is invalid (reported at start-up, never per request).',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** An error with a stable code. `details` is extra JSON merged into the error body. */
export class IrserveError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds a client should wait before retrying (503). */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown>; retryAfter?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IrserveError';
    this.code = code;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
  }

  get httpStatus(): number {
    return ERROR_CATALOG[this.code].http;
  }

  get grpcStatus(): number {
    return ERROR_CATALOG[this.code].grpc;
  }
}

/** Shorthand for the most common error: a malformed request field. */
export function badRequest(message: string, details?: Record<string, unknown>): IrserveError {
  return new IrserveError('ERR_BAD_REQUEST', message, details ? { details } : {});
}

/** Wraps anything thrown into an IrserveError; unknown errors become `fallback` (default ERR_INTERNAL). */
export function toIrserveError(error: unknown, fallback: ErrorCode = 'ERR_INTERNAL'): IrserveError {
  const known = knownIrserveError(error);
  if (known) return known;
  const message = error instanceof Error ? error.message : String(error);
  return new IrserveError(fallback, message, { cause: error });
}

/**
 * An IrserveError from another copy of this module: a plugin or an extra that resolved its own
 * `irserve` (a different install, or the compiled copy beside the sources). Its code is kept.
 */
function isForeignIrserveError(error: unknown): error is IrserveError {
  if (!(error instanceof Error) || error.name !== 'IrserveError') return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(ERROR_CATALOG, code);
}

/** `error` as an IrserveError when it is one (of this or another copy of irserve), else undefined. */
export function knownIrserveError(error: unknown): IrserveError | undefined {
  if (error instanceof IrserveError) return error;
  if (!isForeignIrserveError(error)) return undefined;
  return new IrserveError(error.code, error.message, {
    cause: error,
    details: error.details,
    retryAfter: error.retryAfter,
  });
}

/** The JSON body of an error response: `{"error": "...", "code": "ERR_..."}` plus details. */
export function errorBody(error: IrserveError): Record<string, unknown> {
  return { ...error.details, error: error.message, code: error.code };
}

/**
 * Codes a remote instance may hand back through a relay as they are: its answers about the
 * request itself. Anything else from a remote becomes ERR_UPSTREAM.
 */
const PASSED_THROUGH: ReadonlySet<string> = new Set<ErrorCode>([
  'ERR_BAD_REQUEST',
  'ERR_SERVICE_NOT_FOUND',
  'ERR_COLLECTION_NOT_FOUND',
  'ERR_DOC_NOT_FOUND',
  'ERR_PIPELINE_SYNTAX',
  'ERR_PIPELINE_PLAN',
  'ERR_BODY_TOO_LARGE',
  'ERR_UPSTREAM',
  'ERR_TIMEOUT',
]);

export function isPassedThroughCode(code: string | undefined): code is ErrorCode {
  return code !== undefined && PASSED_THROUGH.has(code);
}
