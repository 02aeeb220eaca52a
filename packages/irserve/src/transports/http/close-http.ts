import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * How the HTTP server closes: after its in-flight requests, then at once.
 *
 * Node closes only the keep-alive sockets that are idle when close starts; one that is busy then
 * stays open after its answer until the keep-alive timeout (72 s in Fastify). Worse, Node counts
 * a socket as busy while its parser is inside a request it never finished reading (a request
 * answered before its body arrived, such as a 401), and such a socket is let go only by the
 * request timeout check, 30 to 60 s later: seen as a drain (and a SIGTERM) hanging that long.
 * So while closing, idle sockets are closed as they appear, and once no response is left open
 * every remaining socket is: nothing is waiting on any of them.
 *
 * @example
 * const closeHttp = drainingClose(http); // at start, before any request
 * await closeHttp();
 */
export function drainingClose(http: FastifyInstance): () => Promise<void> {
  let open = 0;
  http.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    open++;
    response.once('close', () => open--);
  });
  return async () => {
    const sweep = setInterval(() => {
      if (open === 0) http.server.closeAllConnections();
      else http.server.closeIdleConnections();
    }, 50);
    try {
      await http.close();
    } finally {
      clearInterval(sweep);
    }
  };
}
