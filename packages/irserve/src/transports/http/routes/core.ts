import type { FastifyInstance } from 'fastify';
import type { AppCore } from '../../../core/app-core.js';
import { runBatch } from '../../../core/batch.js';
import { avail, decomposeQuery, fuse, score, search } from '../../../core/handlers.js';
import { callOptions } from '../call-options.js';
import { openApiDocument } from '../openapi.js';

/** `/ping`, `/avail`, `/search` (and RoutIR's deprecated `/query`), `/score`, `/fuse`, `/decompose_query`, `/batch`, `/openapi.json`. */
export function coreRoutes(
  server: FastifyInstance,
  core: AppCore,
  availExtras: () => Record<string, unknown>,
): void {
  server.get('/ping', async () => ({ status: 'pong' }));
  server.get('/health', async () => core.health());
  server.get('/avail', async () => ({ ...avail(core), ...availExtras() }));
  server.post('/search', async (request) => search(core, request.body, callOptions(request)));
  server.post('/query', async (request) => search(core, request.body, callOptions(request)));
  server.post('/score', async (request) => score(core, request.body, callOptions(request)));
  server.post('/fuse', async (request) => fuse(core, request.body, callOptions(request)));
  server.post('/decompose_query', async (request) =>
    decomposeQuery(core, request.body, callOptions(request)),
  );
  server.post('/batch', async (request) => runBatch(core, request.body, callOptions(request)));
  const document = openApiDocument();
  server.get('/openapi.json', async () => document);
}
