import type { FastifyInstance } from 'fastify';
import type { AppCore } from '../../../core/app-core.js';
import { getContent, getRawContent } from '../../../core/content.js';
import { badRequest } from '../../../errors.js';

/**
 * `POST /content` (JSON) and `GET /content/:collection/<id>?view=` (raw; the id may contain
 * `/`). Errors are thrown as IrserveError and mapped by the server's error handler.
 */
export function contentRoutes(server: FastifyInstance, core: AppCore): void {
  server.post('/content', (request) => getContent(core, request.body));
  server.get('/content/:collection/*', async (request, reply) => {
    const params = request.params as { collection: string; '*': string };
    const query = request.query as { view?: unknown };
    if (query.view !== undefined && typeof query.view !== 'string')
      throw badRequest('view: give one view name', { fields: ['view'] });
    const view = query.view !== undefined && query.view !== '' ? query.view : undefined;
    const { body, contentType } = await getRawContent(core, {
      collection: params.collection,
      id: params['*'],
      ...(view !== undefined ? { view } : {}),
    });
    void reply.header('content-type', contentType).header('x-content-type-options', 'nosniff');
    return reply.send(body);
  });
}
