import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from '../../core/request-id.js';
import { IrserveError, errorBody, toIrserveError } from '../../errors.js';
import { failureLevel, redactPaths } from '../../util/error-logging.js';

/** Maps Fastify's own errors (body parsing, limits) to the catalog. */
function fromFastify(error: FastifyError): IrserveError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new IrserveError('ERR_BODY_TOO_LARGE', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new IrserveError(
        'ERR_UNSUPPORTED_MEDIA_TYPE',
        `unsupported Content-Type: send the body as application/json`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new IrserveError('ERR_BAD_REQUEST', 'request body is empty: send a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new IrserveError('ERR_BAD_REQUEST', 'Content-Length does not match the body');
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new IrserveError('ERR_BAD_REQUEST', `request body is not valid JSON: ${error.message}`);
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new IrserveError('ERR_BAD_REQUEST', error.message);
  }
  return undefined;
}

/** Anything thrown while answering an HTTP request, as a catalog error. */
export function httpError(error: unknown): IrserveError {
  return error instanceof IrserveError
    ? error
    : (fromFastify(error as FastifyError) ?? toIrserveError(error));
}

/**
 * The one place errors become HTTP answers: status from the catalog, `{"error","code"}` body
 * (paths redacted from a 5xx message), the request id, `Retry-After` where the catalog gives
 * one, and the log line the failure deserves.
 */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const mapped = httpError(error);
  const level = failureLevel(mapped);
  const reqId = request.id;
  if (level === 'error')
    request.log.error({ err: error, code: mapped.code, reqId }, mapped.message);
  else if (level === 'debug') request.log.debug({ code: mapped.code, reqId }, mapped.message);
  void reply.header(REQUEST_ID_HEADER, reqId).header('x-content-type-options', 'nosniff');
  if (mapped.retryAfter !== undefined) void reply.header('retry-after', String(mapped.retryAfter));
  const body = errorBody(mapped);
  if (mapped.httpStatus >= 500) body.error = redactPaths(mapped.message);
  return reply.code(mapped.httpStatus).type('application/json; charset=utf-8').send(body);
}
