import { Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { IrserveError, toIrserveError } from '../../errors.js';
import { redactPaths } from '../../util/error-logging.js';
import { ERROR_CODE_KEY } from './call-context.js';

/**
 * The one place errors become gRPC statuses: the status comes from the catalog (`grpc` of the
 * code), the details are the same message REST sends, and the catalog code travels in the
 * trailing metadata so irserve relays can rebuild the exact error. Anything that is not an
 * IrserveError is a bug and becomes INTERNAL: never an OK with empty scores (RoutIR's bug).
 */
export function toStatus(error: unknown): {
  mapped: IrserveError;
  status: Partial<StatusObject> & Pick<ServiceError, 'code' | 'details'>;
} {
  const mapped = error instanceof IrserveError ? error : toIrserveError(error);
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_KEY, mapped.code);
  if (mapped.retryAfter !== undefined) metadata.set('retry-after', String(mapped.retryAfter));
  const details = mapped.httpStatus >= 500 ? redactPaths(mapped.message) : mapped.message;
  return { mapped, status: { code: mapped.grpcStatus, details, metadata } };
}
