import type { FastifyInstance } from 'fastify';
import type { AppCore } from '../../core/app-core.js';
import type { AppMetrics } from '../../metrics/prometheus.js';
import { serviceLabel } from '../service-label.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The service a request of this route goes to, when its body does not name it in `service`
     * (a compat route's `model`): what the request metrics count it under.
     */
    serviceOf?: (body: unknown) => string | undefined;
  }
}

/** Records one answered HTTP request: its route template, parsed body, path params and status. */
export type RequestObserver = (
  route: string,
  body: unknown,
  params: unknown,
  status: number,
  seconds: number,
) => void;

/**
 * The observer of answered HTTP requests (route template, service, status, duration) in the
 * app's metrics; the service is the one the body names (or the `:collection` of the path).
 */
export function requestObserver(core: AppCore, metrics: AppMetrics): RequestObserver {
  return (route, body, params, status, seconds) => {
    const named = body as { service?: unknown; collection?: unknown } | null | undefined;
    const path = params as { collection?: unknown } | undefined;
    metrics.observeRequest(
      {
        transport: 'http',
        route,
        service: serviceLabel(core, {
          service: named?.service,
          collection: named?.collection ?? path?.collection,
        }),
        status: String(status),
      },
      seconds,
    );
  };
}

/**
 * Records every request Fastify answers in the app's metrics. Unknown paths count under the
 * route "(no route)"; a route whose body names its service otherwise says which through
 * `config.serviceOf`.
 *
 * @example
 * recordRequests(server, requestObserver(core, metrics));
 */
export function recordRequests(server: FastifyInstance, observe: RequestObserver): void {
  server.addHook('onResponse', (request, reply, done) => {
    const service = request.routeOptions.config.serviceOf?.(request.body);
    observe(
      request.routeOptions.url ?? '(no route)',
      service === undefined ? request.body : { service },
      request.params,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
