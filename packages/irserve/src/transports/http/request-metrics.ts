import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppCore } from '../../core/app-core.js';
import type { AppMetrics } from '../../metrics/prometheus.js';
import { serviceLabel } from '../../metrics/service-label.js';

/** The service or collection an HTTP request names (body, or the `:collection` of the path). */
function requestServiceLabel(core: AppCore, request: FastifyRequest): string {
  const body = request.body as { service?: unknown; collection?: unknown } | undefined;
  const params = request.params as { collection?: unknown } | undefined;
  return serviceLabel(core, {
    service: body?.service,
    collection: body?.collection ?? params?.collection,
  });
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
        service: requestServiceLabel(core, request),
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
