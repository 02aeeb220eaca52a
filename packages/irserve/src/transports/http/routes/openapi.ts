import type { FastifyInstance } from 'fastify';
import type { OpenApiBuilder } from '../openapi/document.js';
import type { RouteDoc } from '../openapi/route-doc.js';

/** The version of the HTTP API the document describes (bumped when a route changes shape). */
export const API_VERSION = '1.0.0';

const openApiDoc: RouteDoc = {
  operationId: 'openapi',
  summary: "This OpenAPI 3.1 document (generated from the routes' own schemas)",
  tags: ['server'],
};

/**
 * `GET /openapi.json`. Rendered on the first request, when every route (also those other
 * modules register after this one) is known; Fastify adds no routes once it is ready.
 */
export function openApiRoute(server: FastifyInstance, builder: OpenApiBuilder): void {
  let document: Promise<unknown> | undefined;
  server.get('/openapi.json', { config: { openapi: openApiDoc } }, async () => {
    document ??= builder
      .document({
        title: 'irserve',
        version: API_VERSION,
        description:
          'Retrieval server: search, score, fuse, decompose, pipelines and document content. ' +
          'Wire-compatible with RoutIR. Errors are {"error": "...", "code": "ERR_..."}.',
      })
      .catch((error: unknown) => {
        document = undefined; // not kept: the next request tries again
        throw error;
      });
    return document;
  });
}
