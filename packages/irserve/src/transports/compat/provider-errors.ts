/**
 * Errors of the provider-compatible routes in each provider's own shape, so that the official
 * clients raise their usual exceptions: OpenAI `{"error": {message, type, param, code}}`,
 * Cohere `{"message"}`, Jina `{"detail"}`, TEI `{"error", "error_type"}`. The catalog code
 * travels in the `x-irserve-error-code` header.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_ID_HEADER } from '../../core/request-id.js';
import { errorBody, type IrserveError } from '../../errors.js';
import { httpError } from '../http/errors.js';

/**
 * `tei-or-irserve`: `/embed` and `/embed_sparse` before their body is read (it did not parse, or
 * the request was refused first), when it is not known whether it is TEI's or irserve's.
 */
export type Provider = 'openai' | 'cohere' | 'rerank-v1' | 'tei' | 'tei-or-irserve';

interface Shaped {
  status: number;
  body: unknown;
}

function isModelMissing(error: IrserveError): boolean {
  return error.code === 'ERR_SERVICE_NOT_FOUND' && error.details?.model !== undefined;
}

function openAiError(error: IrserveError): Shaped {
  const status = isModelMissing(error) ? 404 : error.httpStatus;
  const fields = error.details?.fields;
  const param = isModelMissing(error)
    ? 'model'
    : Array.isArray(fields) && typeof fields[0] === 'string' && fields[0] !== ''
      ? fields[0]
      : null;
  const type =
    status === 401
      ? 'authentication_error'
      : status >= 500
        ? 'server_error'
        : 'invalid_request_error';
  const code = isModelMissing(error)
    ? 'model_not_found'
    : status === 401
      ? 'invalid_api_key'
      : error.code.toLowerCase();
  return { status, body: { error: { message: error.message, type, param, code } } };
}

type TeiErrorType = 'Validation' | 'Overloaded' | 'Backend';

/** TEI's statuses: 422 validation, 413 too large, 424 backend failure, 429 overloaded. */
function teiStatus(error: IrserveError): { status: number; type: TeiErrorType } {
  switch (error.code) {
    case 'ERR_BAD_REQUEST':
    case 'ERR_SERVICE_NOT_FOUND':
    case 'ERR_UNSUPPORTED_MEDIA_TYPE':
      return { status: 422, type: 'Validation' };
    case 'ERR_BODY_TOO_LARGE':
      return { status: 413, type: 'Validation' };
    case 'ERR_OVERLOADED':
      return { status: 429, type: 'Overloaded' };
    case 'ERR_ENGINE':
    case 'ERR_UPSTREAM':
    case 'ERR_UPSTREAM_TIMEOUT':
      return { status: 424, type: 'Backend' };
    case 'ERR_COLLECTION_NOT_FOUND':
    case 'ERR_CONFIG':
    case 'ERR_DOC_NOT_FOUND':
    case 'ERR_INTERNAL':
    case 'ERR_METHOD_NOT_ALLOWED':
    case 'ERR_NOT_FOUND':
    case 'ERR_PIPELINE_PLAN':
    case 'ERR_PIPELINE_SYNTAX':
    case 'ERR_SHUTTING_DOWN':
    case 'ERR_UNAUTHORIZED':
    case 'ERR_FORBIDDEN':
    case 'ERR_HEADERS_TOO_LARGE':
    case 'ERR_REQUEST_TIMEOUT':
    case 'ERR_CLIENT_CLOSED':
    case 'ERR_TIMEOUT':
      return { status: error.httpStatus, type: error.httpStatus < 500 ? 'Validation' : 'Backend' };
  }
}

function teiError(error: IrserveError): Shaped {
  const { status, type } = teiStatus(error);
  return { status, body: { error: error.message, error_type: type } };
}

/**
 * The status and body of `error` in `provider`'s shape. `/v1/rerank` is Cohere's and Jina's
 * path at once: its body carries both `message` (Cohere) and `detail` (Jina).
 *
 * @example
 * providerError('cohere', new IrserveError('ERR_BAD_REQUEST', 'query: must be a string'))
 * // { status: 400, body: { message: 'query: must be a string' } }
 */
export function providerError(provider: Provider, error: IrserveError): Shaped {
  switch (provider) {
    case 'openai':
      return openAiError(error);
    case 'tei':
      return teiError(error);
    case 'tei-or-irserve':
      // Both shapes at once: irserve's status and {error, code}, and TEI's error_type.
      return {
        status: error.httpStatus,
        body: { ...errorBody(error), error_type: teiStatus(error).type },
      };
    case 'cohere':
      return {
        status: isModelMissing(error) ? 404 : error.httpStatus,
        body: { message: error.message },
      };
    case 'rerank-v1':
      return {
        status: isModelMissing(error) ? 404 : error.httpStatus,
        body: { message: error.message, detail: error.message },
      };
  }
}

/** A Fastify error handler answering in `provider`'s shape (a route's `errorHandler`). */
export function providerErrorHandler(provider: Provider) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const mapped = httpError(error);
    if (mapped.httpStatus >= 500)
      request.log.error({ err: error, code: mapped.code, reqId: request.id }, mapped.message);
    const { status, body } = providerError(provider, mapped);
    void reply.header(REQUEST_ID_HEADER, request.id).header('x-content-type-options', 'nosniff');
    void reply.header('x-irserve-error-code', mapped.code);
    if (mapped.retryAfter !== undefined)
      void reply.header('retry-after', String(mapped.retryAfter));
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  };
}

/**
 * Registers routes in an encapsulated scope whose errors (bad JSON, auth, validation, engine
 * failures) are answered in `provider`'s shape. Fastify adds them before the server is ready.
 */
export function providerScope(
  server: FastifyInstance,
  provider: Provider | Parameters<FastifyInstance['setErrorHandler']>[0],
  routes: (scope: FastifyInstance) => void,
): void {
  void server.register(async (scope) => {
    scope.setErrorHandler(typeof provider === 'string' ? providerErrorHandler(provider) : provider);
    routes(scope);
  });
}
