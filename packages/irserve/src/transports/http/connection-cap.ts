import type { Server } from 'node:http';
import type { Logger } from 'pino';

/** Least time between two warnings about refused connections. */
const WARN_EVERY_MS = 10_000;

/**
 * Caps the connections `server` keeps open at `max`: Node closes one past it as it arrives,
 * before reading a byte. A warning, at most one every ten seconds, counts the connections
 * refused since the last one, so an operator sees the cap reached without a line per refusal.
 *
 * @example
 * capConnections(fastify.server, 4096, logger);
 */
export function capConnections(server: Server, max: number, logger: Logger): void {
  server.maxConnections = max;
  let refused = 0;
  let warnedAt = -Infinity;
  server.on('drop', () => {
    refused++;
    const now = Date.now();
    if (now - warnedAt < WARN_EVERY_MS) return;
    logger.warn(
      { refused, max_connections: max },
      'connections refused: max_connections are open (raise max_connections if clients are honest)',
    );
    refused = 0;
    warnedAt = now;
  });
}
