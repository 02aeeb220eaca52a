/** gRPC failures as IrserveClientError, with the server's own code when it sent one. */
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { CLIENT_ERROR_CODES, IrserveClientError } from '../errors.js';

/** The metadata key irserve's gRPC server puts its error code in. */
const ERROR_CODE_KEY = 'x-irserve-error-code';

/** Catalog codes a gRPC status stands for when the server (RoutIR) sent no code. */
const CODE_OF_STATUS: Partial<Record<number, string>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 'ERR_BAD_REQUEST',
  [GrpcStatus.NOT_FOUND]: 'ERR_SERVICE_NOT_FOUND',
  [GrpcStatus.UNAUTHENTICATED]: 'ERR_UNAUTHORIZED',
  [GrpcStatus.PERMISSION_DENIED]: 'ERR_UNAUTHORIZED',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'ERR_OVERLOADED',
  [GrpcStatus.DEADLINE_EXCEEDED]: CLIENT_ERROR_CODES.ERR_TIMEOUT,
  [GrpcStatus.UNAVAILABLE]: CLIENT_ERROR_CODES.ERR_NETWORK,
  [GrpcStatus.INTERNAL]: 'ERR_ENGINE',
  [GrpcStatus.UNIMPLEMENTED]: CLIENT_ERROR_CODES.ERR_NOT_SUPPORTED,
};

/** The HTTP status of the same failure over REST (what `error.status` says either way). */
const HTTP_OF_CODE: Record<string, number> = {
  ERR_BAD_REQUEST: 400,
  ERR_SERVICE_NOT_FOUND: 400,
  ERR_COLLECTION_NOT_FOUND: 400,
  ERR_PIPELINE_SYNTAX: 400,
  ERR_PIPELINE_PLAN: 400,
  ERR_DOC_NOT_FOUND: 404,
  ERR_UNAUTHORIZED: 401,
  ERR_BODY_TOO_LARGE: 413,
  ERR_OVERLOADED: 503,
  ERR_SHUTTING_DOWN: 503,
  ERR_ENGINE: 500,
  ERR_INTERNAL: 500,
  ERR_UPSTREAM: 502,
  ERR_UPSTREAM_TIMEOUT: 504,
};

/**
 * The typed error of a failed RPC.
 *
 * @example
 * errorOfStatus(serviceError, 'Search').code // 'ERR_SERVICE_NOT_FOUND'
 */
export function errorOfStatus(error: ServiceError, rpc: string): IrserveClientError {
  const sent = error.metadata?.get(ERROR_CODE_KEY)[0];
  const code =
    typeof sent === 'string' ? sent : (CODE_OF_STATUS[error.code] ?? `ERR_GRPC_${error.code}`);
  const requestId = error.metadata?.get('x-request-id')[0];
  return new IrserveClientError(code, `${rpc}: ${error.details || error.message}`, {
    status: HTTP_OF_CODE[code],
    requestId: typeof requestId === 'string' ? requestId : undefined,
    details: { grpc_status: GrpcStatus[error.code] },
    cause: error,
  });
}
