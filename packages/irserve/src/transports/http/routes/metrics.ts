import type { FastifyInstance } from 'fastify';
import type { AppMetrics } from '../../../metrics/prometheus.js';

/**
 * `GET /metrics`: the Prometheus exposition of the app, behind the same bearer check as every
 * route (Prometheus sends it with `authorization.credentials` in its scrape config).
 */
export function metricsRoute(server: FastifyInstance, metrics: AppMetrics): void {
  server.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await metrics.render();
    return reply.header('content-type', contentType).send(body);
  });
}
