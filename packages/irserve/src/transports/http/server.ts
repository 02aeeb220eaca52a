import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createBearerCheck } from '../../auth/bearer.js';
import type { AppCore } from '../../core/app-core.js';
import { REQUEST_ID_HEADER, acceptRequestId } from '../../core/request-id.js';
import { IrserveError } from '../../errors.js';
import { sendError } from './errors.js';
import { createBodySerializer } from './serialize.js';
import { coreRoutes } from './routes/core.js';
import { contentRoutes } from './routes/content.js';
import { pipelineRoutes } from './routes/pipeline.js';
import { openApiRoute } from './routes/openapi.js';
import { OpenApiBuilder } from './openapi/document.js';

export interface HttpOptions {
  /** Bearer token; undefined means no authentication. */
  apiKey: string | undefined;
  bodyLimit: number;
  logger: Logger;
  /** Extra keys merged into `/avail` (for example `grpc_port`). */
  availExtras?: () => Record<string, unknown>;
}

const OPEN_PATHS = new Set(['/ping']);

/** Builds the Fastify server: auth, request ids, one log line per request, routes, errors. */
export function buildHttpServer(core: AppCore, options: HttpOptions): FastifyInstance {
  // Typed as Fastify's logger so the instance type stays the default one routes are written for.
  const fastifyLogger: FastifyBaseLogger = options.logger;
  const server = Fastify({
    loggerInstance: fastifyLogger,
    // One line per request is written by the onResponse hook below, not Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (it costs more than a cache hit): log lines carry `reqId` themselves.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.bodyLimit,
    // The client's x-request-id when acceptable (core/request-id.ts), else a new UUID.
    requestIdHeader: false,
    genReqId: (request) => acceptRequestId(request.headers[REQUEST_ID_HEADER]),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  });

  if (options.apiKey !== undefined) {
    const check = createBearerCheck(options.apiKey);
    server.addHook('onRequest', async (request) => {
      if (request.method === 'OPTIONS' || OPEN_PATHS.has(request.routeOptions.url ?? '')) return;
      if (!check(request.headers.authorization)) {
        throw new IrserveError(
          'ERR_UNAUTHORIZED',
          'missing or invalid bearer token: send "Authorization: Bearer <API_KEY>"',
        );
      }
    });
  }
  // Every route registered from here on (by any module) lands in the OpenAPI document.
  const openApi = new OpenApiBuilder();
  server.addHook('onRoute', (route) => openApi.collect(route));
  // Every answer carries its request id: routes through a wrapper put around each handler when
  // the route is registered, errors through sendError. Not an onRequest hook: without one (and
  // without an API key) Fastify skips its hook runner on every request.
  server.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function withRequestId(this: FastifyInstance, request, reply) {
      void reply.header(REQUEST_ID_HEADER, request.id);
      return handler.call(this, request, reply);
    };
  });
  // The request log line is info: below that level (log_level warn or error) the hook is not
  // registered at all, so a response skips Fastify's onResponse hook runner.
  if (options.logger.isLevelEnabled('info')) {
    server.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        {
          reqId: request.id,
          method: request.method,
          url: request.url,
          status: reply.statusCode,
          ms: Number(reply.elapsedTime.toFixed(2)),
        },
        'request',
      );
      done();
    });
  }

  // Score maps go out best first whatever their ids look like; a cache hit's are written once
  // (see serialize.ts).
  const serialize = createBodySerializer();
  server.setReplySerializer((payload) => serialize(payload));
  // Fastify parses text/plain by default; irserve speaks JSON only (415 for anything else).
  server.removeContentTypeParser('text/plain');
  server.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  server.setNotFoundHandler((request, reply) => {
    const allowed = ['GET', 'POST'].filter((method) =>
      server.hasRoute({ method, url: request.url.split('?')[0] ?? '' }),
    );
    const error =
      allowed.length > 0
        ? new IrserveError(
            'ERR_METHOD_NOT_ALLOWED',
            `${request.method} is not allowed on ${request.url}; use ${allowed.join(' or ')}`,
          )
        : new IrserveError('ERR_NOT_FOUND', `no route ${request.method} ${request.url}`);
    if (allowed.length > 0) void reply.header('allow', allowed.join(', '));
    return sendError(error, request, reply);
  });

  coreRoutes(server, core, options.availExtras ?? (() => ({})));
  contentRoutes(server, core);
  pipelineRoutes(server, core);
  openApiRoute(server, openApi);
  return server;
}
