import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { Fastify, LogController } from '../../prebundled/fastify.js';
import type { Logger } from 'pino';
import { createBearerCheck } from '../../auth/bearer.js';
import type { AppCore } from '../../core/app-core.js';
import { REQUEST_ID_HEADER, acceptRequestId } from '../../core/request-id.js';
import { IrserveError } from '../../errors.js';
import { answerClientError } from './client-error.js';
import { sendError } from './errors.js';
import { capConnections } from './connection-cap.js';
import { depthLimitedJson } from './json-body.js';
import { logEachRequest } from './request-log.js';
import { answerUnrouted } from './no-route.js';
import { createBodySerializer } from './serialize.js';
import { coreRoutes } from './routes/core.js';
import { contentRoutes } from './routes/content.js';
import { pipelineRoutes } from './routes/pipeline.js';
import type { CompatConfig } from '../../config/compat-schema.js';
import { compatRoutes } from '../compat/index.js';
import type { McpConfig } from '../../config/mcp-schema.js';
import { mcpRoutes } from '../mcp/http.js';
import type { McpOptions } from '../mcp/server.js';
import { metricsRoute } from './routes/metrics.js';
import { uiRoutes } from './routes/ui.js';
import { recordRequests, requestObserver } from './request-metrics.js';
import type { AppMetrics } from '../../metrics/prometheus.js';
import { openApiRoute } from './routes/openapi.js';
import { OpenApiBuilder } from './openapi/document.js';

export interface HttpOptions {
  /** Bearer token; undefined means no authentication. */
  apiKey: string | undefined;
  bodyLimit: number;
  /** Seconds a client may take to send one request (headers and body): then 408, closed. */
  requestTimeout: number;
  /** Connections open at once; one past it is closed as it arrives. */
  maxConnections: number;
  logger: Logger;
  /** Extra keys merged into `/avail` (for example `grpc_port`). */
  availExtras?: () => Record<string, unknown>;
  /** Model names of the provider-compatible routes (config `compat`); absent: services by name. */
  compat?: CompatConfig;
  /** The `/mcp` endpoint (config `mcp`) and what its tools describe; absent: served with defaults. */
  mcp?: McpConfig & McpOptions;
  /** Record request metrics; `route` also serves `/metrics` here (not on a port of its own). */
  metrics?: { metrics: AppMetrics; route: boolean } | undefined;
  /** Serve the playground at `/ui` (default true). */
  playground?: boolean;
}

// The playground's static files hold no data; the calls the page makes are authenticated.
const OPEN_PATHS = new Set(['/ping', '/ui', '/ui/*']);
/** Seconds a client should wait before retrying a request refused while the server drains. */
const SHUTDOWN_RETRY_AFTER = 5;
const DEFAULT_COMPAT: CompatConfig = {
  embeddings: {},
  rerank: {},
  sparse_embeddings: {},
  expose_services: true,
  tei: {},
};

type SchemaCompilers = NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];
/**
 * Fastify's schema compilers (Ajv, fast-json-stringify), loaded only when a route declares a
 * Fastify schema. irserve's routes check requests with zod and serialize bodies themselves, so
 * none does; Fastify would otherwise load both at construction (tens of ms of every start-up).
 */
function lazySchemaCompilers(): SchemaCompilers {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  type Factory = (...args: unknown[]) => unknown;
  const load =
    (name: string) =>
    (...args: unknown[]) =>
      (fromFastify(name) as () => Factory)()(...args);
  return {
    buildValidator: load('@fastify/ajv-compiler'),
    buildSerializer: load('@fastify/fast-json-stringify-compiler'),
  } as SchemaCompilers;
}

/** Builds the Fastify server: auth, request ids, one log line per request, routes, errors. */
export function buildHttpServer(core: AppCore, options: HttpOptions): FastifyInstance {
  // Keep this order: hooks of one kind run in the order they were added, and an onRoute hook
  // sees only the routes registered after it.
  const server = createFastify(options);
  capConnections(server.server, options.maxConnections, options.logger);
  if (options.apiKey !== undefined) requireBearerToken(server, createBearerCheck(options.apiKey));
  // Every route registered from here on (by any module) lands in the OpenAPI document.
  const openApi = new OpenApiBuilder();
  server.addHook('onRoute', (route) => openApi.collect(route));
  stampRequestIdAndRefuseWhileClosing(server);
  // The request log line is info: below that level (log_level warn or error) the hook is not
  // registered at all, so a response skips Fastify's onResponse hook runner.
  if (options.logger.isLevelEnabled('info')) logEachRequest(server, options.apiKey);
  setBodyHandling(server);
  setErrorHandlers(server);
  registerRoutes(server, core, options);
  openApiRoute(server, openApi);
  return server;
}

/** The Fastify instance with irserve's server options; no hooks, handlers or routes yet. */
function createFastify(options: HttpOptions): FastifyInstance {
  // Typed as Fastify's logger so the instance type stays the default one routes are written for.
  const fastifyLogger: FastifyBaseLogger = options.logger;
  return Fastify({
    loggerInstance: fastifyLogger,
    // One line per request is written by the onResponse hook (logEachRequest), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (it costs more than a cache hit): log lines carry `reqId` themselves.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.bodyLimit,
    // The client's x-request-id when acceptable (core/request-id.ts), else a new UUID.
    requestIdHeader: false,
    genReqId: (request) => acceptRequestId(request.headers[REQUEST_ID_HEADER]),
    // Requests that arrive while closing get irserve's 503 (code, Retry-After): see
    // stampRequestIdAndRefuseWhileClosing.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    // A URL that does not decode (`%ff`): irserve's 400, not Fastify's body without a catalog code.
    frameworkErrors: (_error, request, reply) => {
      void sendError(
        new IrserveError('ERR_BAD_REQUEST', 'the URL does not decode (bad percent-encoding)'),
        request,
        reply,
      );
    },
    forceCloseConnections: 'idle',
    // Fastify turns Node's request timeout off; a request must arrive within requestTimeout and
    // its headers within a minute at most (Node's default). Node checks the open connections
    // against both every second (every 30 s by default, which lets a 1-s timeout run 31 s).
    requestTimeout: options.requestTimeout * 1000,
    http: {
      headersTimeout: Math.min(60_000, options.requestTimeout * 1000),
      connectionsCheckingInterval: 1000,
    },
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: lazySchemaCompilers() },
  });
}

/** Refuses every request but those to the open paths without the bearer token. */
function requireBearerToken(
  server: FastifyInstance,
  check: (header: string | undefined) => boolean,
): void {
  server.addHook('onRequest', async (request) => {
    if (OPEN_PATHS.has(request.routeOptions.url ?? '')) return;
    if (!check(request.headers.authorization)) {
      throw new IrserveError(
        'ERR_UNAUTHORIZED',
        'missing or invalid bearer token: send "Authorization: Bearer <API_KEY>"',
      );
    }
  });
}

/**
 * Every answer carries its request id and `X-Content-Type-Options: nosniff`: routes through a
 * wrapper put around each handler when the route is registered, errors through sendError (and
 * the provider routes' error handlers, and Node's parser errors in client-error.ts). Not an
 * onRequest hook: without one (and without an API key) Fastify skips its hook runner on every
 * request. The same wrapper answers 503 (with Retry-After, closing the connection) once the
 * server has begun to close.
 */
function stampRequestIdAndRefuseWhileClosing(server: FastifyInstance): void {
  const state = { closing: false };
  server.addHook('preClose', (done) => {
    state.closing = true;
    done();
  });
  server.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function withRequestId(this: FastifyInstance, request, reply) {
      void reply.header(REQUEST_ID_HEADER, request.id);
      // On the raw response: also on the answers of routes that write it themselves (/mcp).
      reply.raw.setHeader('x-content-type-options', 'nosniff');
      if (state.closing) {
        void reply.header('connection', 'close');
        throw new IrserveError('ERR_SHUTTING_DOWN', 'the server is shutting down', {
          retryAfter: SHUTDOWN_RETRY_AFTER,
        });
      }
      return handler.call(this, request, reply);
    };
  });
}

/** How bodies are written and which are read: irserve's serializer out, JSON only in. */
function setBodyHandling(server: FastifyInstance): void {
  // Score maps go out best first whatever their ids look like; a cache hit's are written once
  // (see serialize.ts).
  const serialize = createBodySerializer();
  server.setReplySerializer((payload) => serialize(payload));
  // Fastify parses text/plain by default; irserve speaks JSON only (415 for anything else), and
  // no deeper than MAX_BODY_DEPTH levels.
  server.removeContentTypeParser(['text/plain', 'application/json']);
  server.addContentTypeParser('application/json', { parseAs: 'string' }, depthLimitedJson(server));
}

/** Errors answer through sendError; requests no route takes through answerUnrouted. */
function setErrorHandlers(server: FastifyInstance): void {
  server.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  answerUnrouted(server);
}

/** The routes, in this order; /openapi.json is registered last, by the caller, to list them all. */
function registerRoutes(server: FastifyInstance, core: AppCore, options: HttpOptions): void {
  if (options.metrics) recordRequests(server, requestObserver(core, options.metrics.metrics));
  if (options.metrics?.route) metricsRoute(server, options.metrics.metrics);
  if (options.playground ?? true) uiRoutes(server);
  coreRoutes(server, core, options.availExtras ?? (() => ({})));
  contentRoutes(server, core);
  pipelineRoutes(server, core);
  compatRoutes(server, core, options.compat ?? DEFAULT_COMPAT);
  const mcp = options.mcp ?? { enabled: true, allowed_origins: [], allowed_hosts: [] };
  if (mcp.enabled) mcpRoutes(server, core, mcp, mcp);
}
