import type { FastifyInstance } from 'fastify';
import type { AppCore } from '../../../core/app-core.js';
import { runBatch } from '../../../core/batch.js';
import { avail, decomposeQuery, fuse, score, search } from '../../../core/handlers.js';
import { callOptions } from '../call-options.js';
import { openApiDocument } from '../openapi.js';

/**
 * `/ping`, `/avail`, `/search` (and RoutIR's deprecated `/query`), `/score`, `/fuse`,
 * `/decompose_query`, `/batch`, `/openapi.json`. POST handlers return the handler's promise
 * as it is (Fastify awaits it; a synchronous throw becomes an error reply): an `async`
 * wrapper would only add a promise and two microtask turns per request.
 */
export function coreRoutes(
  server: FastifyInstance,
  core: AppCore,
  availExtras: () => Record<string, unknown>,
): void {
  server.get('/ping', async () => ({ status: 'pong' }));
  server.get('/health', async () => core.health());
  server.get('/avail', async () => ({ ...avail(core), ...availExtras() }));
  server.post('/search', (request, reply) =>
    search(core, request.body, callOptions(request, reply)),
  );
  server.post('/query', (request, reply) =>
    search(core, request.body, callOptions(request, reply)),
  );
  server.post('/score', (request, reply) => score(core, request.body, callOptions(request, reply)));
  server.post('/fuse', (request, reply) => fuse(core, request.body, callOptions(request, reply)));
  server.post('/decompose_query', (request, reply) =>
    decomposeQuery(core, request.body, callOptions(request, reply)),
  );
  server.post('/batch', (request, reply) =>
    runBatch(core, request.body, callOptions(request, reply)),
  );
  const document = openApiDocument();
  server.get('/openapi.json', async () => document);
}
