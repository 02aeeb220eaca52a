import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { IrserveError, errorBody } from '../../errors.js';

/** What Node's HTTP parser rejected, as a catalog error (before any route or hook runs). */
function clientError(error: NodeJS.ErrnoException): IrserveError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new IrserveError(
        'ERR_HEADERS_TOO_LARGE',
        'request headers or URL are larger than the server accepts (16 KiB by default)',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new IrserveError(
        'ERR_REQUEST_TIMEOUT',
        'the request (headers and body) was not received within request_timeout',
      );
    case undefined:
    default:
      return new IrserveError('ERR_BAD_REQUEST', 'malformed HTTP request');
  }
}

/**
 * Answers a request Node's HTTP parser refused (431 for oversized headers or URL, 408 for one
 * not received within `request_timeout`, 400 for anything malformed) with irserve's error body
 * (`error`, `code`), then closes the socket. Replaces Fastify's default, whose body has no
 * `code`.
 *
 * @example
 * Fastify({ clientErrorHandler: answerClientError });
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const mapped = clientError(error);
  const status = mapped.httpStatus;
  const body = JSON.stringify(errorBody(mapped));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
