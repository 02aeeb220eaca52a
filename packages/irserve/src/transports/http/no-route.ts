import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER } from '../../core/request-id.js';
import { IrserveError } from '../../errors.js';
import { sendError } from './errors.js';

/**
 * What answers a request no route takes, after the bearer check like any other: `OPTIONS` on a
 * path that has routes is a 204 whose `Allow` lists their methods; another method there is a
 * 405 with the same `Allow`; any other path is a 404. Messages name the path without its query
 * string (the log keeps no secret a client put there). irserve sends no CORS headers, so a
 * browser's preflight from another origin fails whatever the answer: a page on another origin
 * calls irserve through a proxy that answers preflights (docs/reliability.md, "OPTIONS").
 *
 * @example
 * answerUnrouted(server); // once, at start-up
 */
export function answerUnrouted(server: FastifyInstance): void {
  server.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = ['GET', 'POST'].filter((method) => server.hasRoute({ method, url: path }));
    if (methods.length === 0)
      return sendError(
        new IrserveError('ERR_NOT_FOUND', `no route ${request.method} ${path}`),
        request,
        reply,
      );
    void reply.header('allow', [...methods, 'OPTIONS'].join(', '));
    if (request.method === 'OPTIONS')
      return reply
        .code(204)
        .header(REQUEST_ID_HEADER, request.id)
        .header('x-content-type-options', 'nosniff')
        .send();
    return sendError(
      new IrserveError(
        'ERR_METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${path}; use ${methods.join(' or ')}`,
      ),
      request,
      reply,
    );
  });
}
