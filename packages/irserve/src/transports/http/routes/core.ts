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
  // 503 until the app has started and once it drains, so load balancers route around it.
  server.get('/health', async (_request, reply) => {
    const report = core.health();
    if (report.ready === false) void reply.code(503);
    return report;
  });
  server.get('/avail', async () => ({ ...avail(core), ...availExtras() }));
  server.post('/search', (request) => search(core, request.body, callOptions(request)));
  server.post('/query', (request) => search(core, request.body, callOptions(request)));
  server.post('/score', (request) => score(core, request.body, callOptions(request)));
  server.post('/fuse', (request) => fuse(core, request.body, callOptions(request)));
  server.post('/decompose_query', (request) =>
    decomposeQuery(core, request.body, callOptions(request)),
  );
  server.post('/batch', (request) => runBatch(core, request.body, callOptions(request)));
  const document = openApiDocument();
  server.get('/openapi.json', async () => document);
}
