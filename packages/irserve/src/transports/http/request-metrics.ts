import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppCore } from '../../core/app-core.js';
import { ROLES } from '../../engines/contract.js';
import type { AppMetrics } from '../../metrics/prometheus.js';

/**
 * The configured service or collection a request names, or "": names a client made up never
 * become label values, so a hostile client cannot grow the series without bound.
 */
export function serviceLabel(core: AppCore, request: FastifyRequest): string {
  const body = request.body as { service?: unknown; collection?: unknown } | undefined;
  const params = request.params as { collection?: unknown } | undefined;
  const service = body?.service;
  if (typeof service === 'string' && ROLES.some((role) => core.services.has(role, service)))
    return service;
  const collection = body?.collection ?? params?.collection;
  if (typeof collection === 'string' && core.collections.has(collection)) return collection;
  return '';
}

/**
 * Records every answered HTTP request (route template, service, status, duration) in the app's
 * metrics. Unknown paths count under the route "(no route)".
 *
 * @example
 * recordRequests(server, core, metrics);
 */
export function recordRequests(server: FastifyInstance, core: AppCore, metrics: AppMetrics): void {
  server.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      {
        transport: 'http',
        route: request.routeOptions.url ?? '(no route)',
        service: serviceLabel(core, request),
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
