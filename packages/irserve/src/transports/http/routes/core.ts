import type { FastifyInstance } from 'fastify';
import { z } from '../../../prebundled/zod.js';
import type { AppCore } from '../../../core/app-core.js';
import { batchRequestSchema, runBatch } from '../../../core/batch.js';
import { healthFor } from '../../../core/availability.js';
import { avail, decomposeQuery, fuse, score, search } from '../../../core/handlers.js';
import {
  decomposeRequestSchema,
  fuseRequestSchema,
  scoreRequestSchema,
  searchRequestSchema,
} from '../../../core/request-schemas.js';
import { callOptions } from '../call-options.js';
import type { RouteDoc } from '../openapi/route-doc.js';

const searchDoc = {
  operationId: 'search',
  summary: 'Search a service',
  tags: ['services'],
  body: { name: 'SearchRequest', schema: searchRequestSchema },
  response: { name: 'SearchResponse', schema: (responses) => responses.searchResponseSchema },
  example: {
    request: { service: 'bm25', query: 'wing flutter', limit: 2 },
    response: {
      cached: false,
      processed: true,
      query: 'wing flutter',
      scores: { '12': 14.2, '208': 11.7 },
      service: 'bm25',
      timestamp: 1795348314.14,
    },
  },
} satisfies RouteDoc;

/**
 * `/ping`, `/health`, `/avail`, `/search` (and RoutIR's deprecated `/query`), `/score`, `/fuse`,
 * `/decompose_query`, `/batch`. POST handlers return the handler's promise as it is (Fastify
 * awaits it; a synchronous throw becomes an error reply): an `async` wrapper would only add a
 * promise and two microtask turns per request. Each route's `config.openapi` is its entry in
 * the OpenAPI document, made from the schemas the handler validates with.
 */
export function coreRoutes(
  server: FastifyInstance,
  core: AppCore,
  availExtras: () => Record<string, unknown>,
): void {
  serverRoutes(server, core, availExtras);
  searchRoutes(server, core);
  serviceRoutes(server, core);
}

/** `/ping`, `/health`, `/avail`: the server itself, not a service. */
function serverRoutes(
  server: FastifyInstance,
  core: AppCore,
  availExtras: () => Record<string, unknown>,
): void {
  const pingDoc: RouteDoc = {
    operationId: 'ping',
    summary: 'Liveness; never needs a token',
    tags: ['server'],
    public: true,
    errors: [],
    response: { name: 'PingResponse', schema: (responses) => responses.pingResponseSchema },
  };
  server.get('/ping', { config: { openapi: pingDoc } }, async () => ({ status: 'pong' }));
  const healthDoc: RouteDoc = {
    operationId: 'health',
    summary:
      "Readiness: degraded while a cache store, an imported remote or a back-end is unreachable; with ?service=, that service's",
    tags: ['server'],
    query: z.object({
      service: z
        .string()
        .optional()
        .describe(
          'one service: 503 while its back-end is unreachable (ERR_SERVICE_NOT_FOUND if unknown)',
        ),
    }),
    errors: [400, 503],
    response: { name: 'HealthResponse', schema: (responses) => responses.healthResponseSchema },
  };
  // 503 until the app has started and once it drains, so load balancers route around it.
  server.get('/health', { config: { openapi: healthDoc } }, async (request, reply) => {
    const { status, report } = healthFor(core, (request.query as { service?: unknown }).service);
    void reply.code(status);
    return report;
  });
  const availDoc: RouteDoc = {
    operationId: 'avail',
    summary: 'The services, collections and pipeline aliases this instance serves',
    tags: ['server'],
    response: { name: 'AvailResponse', schema: (responses) => responses.availResponseSchema },
  };
  server.get('/avail', { config: { openapi: availDoc } }, async () => ({
    ...avail(core),
    ...availExtras(),
  }));
}

/** `/search` and RoutIR's deprecated name of it, `/query`. */
function searchRoutes(server: FastifyInstance, core: AppCore): void {
  server.post('/search', { config: { openapi: searchDoc } }, (request, reply) =>
    search(core, request.body, callOptions(request, reply)),
  );
  const queryDoc: RouteDoc = {
    ...searchDoc,
    operationId: 'query',
    summary: "RoutIR's old name of /search",
    deprecated: true,
  };
  server.post('/query', { config: { openapi: queryDoc } }, (request, reply) =>
    search(core, request.body, callOptions(request, reply)),
  );
}

const scoreDoc = {
  operationId: 'score',
  summary: 'Score passages against a query (text, or base64 parts for a bytes service)',
  tags: ['services'],
  body: { name: 'ScoreRequest', schema: scoreRequestSchema },
  response: { name: 'ScoreResponse', schema: (responses) => responses.scoreResponseSchema },
  example: { request: { service: 'rerank', query: 'wing flutter', passages: ['a', 'b'] } },
} satisfies RouteDoc;

const fuseDoc = {
  operationId: 'fuse',
  summary: 'Fuse several rankings into one',
  tags: ['services'],
  body: { name: 'FuseRequest', schema: fuseRequestSchema },
  response: { name: 'FuseResponse', schema: (responses) => responses.fuseResponseSchema },
  example: { request: { service: 'RRF', query: 'q', scores: [{ a: 2, b: 1 }, { b: 3 }] } },
} satisfies RouteDoc;

const decomposeDoc = {
  operationId: 'decomposeQuery',
  summary: 'Decompose a query into sub-queries',
  tags: ['services'],
  body: { name: 'DecomposeQueryRequest', schema: decomposeRequestSchema },
  response: {
    name: 'DecomposeQueryResponse',
    schema: (responses) => responses.decomposeResponseSchema,
  },
  example: { request: { service: 'decompose', query: 'tallest towers in Paris', limit: 3 } },
} satisfies RouteDoc;

const batchDoc = {
  operationId: 'batch',
  summary: 'Several search, score, fuse or decompose_query calls in one request (irserve)',
  tags: ['services'],
  body: { name: 'BatchRequest', schema: batchRequestSchema },
  response: { name: 'BatchResponse', schema: (responses) => responses.batchResponseSchema },
  example: {
    request: { requests: [{ endpoint: 'search', body: { service: 'bm25', query: 'q' } }] },
  },
} satisfies RouteDoc;

/** `/score`, `/fuse`, `/decompose_query`, `/batch`. */
function serviceRoutes(server: FastifyInstance, core: AppCore): void {
  server.post('/score', { config: { openapi: scoreDoc } }, (request, reply) =>
    score(core, request.body, callOptions(request, reply)),
  );
  server.post('/fuse', { config: { openapi: fuseDoc } }, (request, reply) =>
    fuse(core, request.body, callOptions(request, reply)),
  );
  server.post('/decompose_query', { config: { openapi: decomposeDoc } }, (request, reply) =>
    decomposeQuery(core, request.body, callOptions(request, reply)),
  );
  server.post('/batch', { config: { openapi: batchDoc } }, (request, reply) =>
    runBatch(core, request.body, callOptions(request, reply)),
  );
}
