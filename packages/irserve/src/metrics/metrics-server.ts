import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppMetrics } from './prometheus.js';

export interface MetricsServer {
  /** `http://host:port`, with the port actually bound. */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * `/metrics` on a port of its own, without authentication (config `metrics.port`): for a
 * Prometheus that scrapes a private network while the API port demands a key. Every other path
 * is 404; only GET and HEAD are answered.
 *
 * @example
 * const server = await startMetricsServer(metrics, { port: 9100, host: '127.0.0.1' });
 */
export async function startMetricsServer(
  metrics: AppMetrics,
  options: { port: number; host: string },
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain' });
      response.end(path === '/metrics' ? 'use GET\n' : 'only /metrics is served here\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`metrics failed: ${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    address: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
