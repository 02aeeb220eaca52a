import type { FastifyInstance } from 'fastify';
import { z } from '../../../prebundled/zod.js';
import type { AppCore } from '../../../core/app-core.js';
import { contentRequestSchema, getContent, getRawContent } from '../../../core/content.js';
import { badRequest } from '../../../errors.js';
import { callOptions } from '../call-options.js';
import type { RouteDoc } from '../openapi/route-doc.js';

const contentDoc: RouteDoc = {
  operationId: 'content',
  summary: 'Look up a document (text, or base64 parts for a bytes view)',
  tags: ['content'],
  body: { name: 'ContentRequest', schema: contentRequestSchema },
  response: { name: 'ContentResponse', schema: (responses) => responses.contentResponseSchema },
  errors: [400, 401, 404, 413, 415, 500, 503],
  example: { request: { collection: 'cranfield', id: '12', view: 'text' } },
};

const rawContentDoc: RouteDoc = {
  operationId: 'contentRaw',
  summary: 'The raw text or bytes of a document, with its content type (images show in a browser)',
  tags: ['content'],
  wildcardName: 'id',
  params: {
    collection: 'the collection name',
    id: 'the document id (may contain "/")',
  },
  query: z.object({ view: z.string().optional().describe("the view; default the collection's") }),
  rawResponse: ['application/octet-stream', 'text/plain', 'image/*'],
  errors: [400, 401, 404, 500],
};

/**
 * `POST /content` (JSON) and `GET /content/:collection/<id>?view=` (raw; the id may contain
 * `/`). Errors are thrown as IrserveError and mapped by the server's error handler.
 */
export function contentRoutes(server: FastifyInstance, core: AppCore): void {
  // The client's leaving cuts a lookup relayed to a remote instance (no one else waits for it).
  server.post('/content', { config: { openapi: contentDoc } }, (request, reply) =>
    getContent(core, request.body, { signal: callOptions(request, reply).signal }),
  );
  server.get(
    '/content/:collection/*',
    { config: { openapi: rawContentDoc } },
    async (request, reply) => {
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
      void reply.header('content-type', contentType);
      // A document is the collection's, not the server's: whatever it is (HTML, SVG, XML), it
      // runs no script and submits no form on the origin of the API and the playground. PDF is
      // left out: browsers' viewers do not open under a sandbox, and they run a PDF's scripts
      // in a sandbox of their own.
      if (!/^application\/pdf\b/i.test(contentType))
        void reply.header('content-security-policy', 'sandbox');
      return reply.send(body);
    },
  );
}
