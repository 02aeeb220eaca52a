import { request as httpRequest, type ClientRequest } from 'node:http';

/**
 * POSTs `body` as JSON to `base` + `path` over a socket of its own; the caller leaves with
 * `destroy()`, as a client that gives up does. Errors of the left request are swallowed.
 *
 * @example
 * const request = postOverSocket(url, '/content', { collection: 'docs', id: 'd1' });
 * request.destroy();
 */
export function postOverSocket(base: string, path: string, body: unknown): ClientRequest {
  const url = new URL(base);
  const payload = JSON.stringify(body);
  const request = httpRequest({
    host: url.hostname,
    port: url.port,
    path,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
  });
  request.on('error', () => undefined);
  request.end(payload);
  return request;
}
