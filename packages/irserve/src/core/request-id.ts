/**
 * Request ids (`x-request-id`), the same rule over HTTP and gRPC: a client's id is kept when it
 * is printable ASCII of at most 200 characters, so it can go into logs and headers as it is;
 * anything else is replaced by a new UUID (an id that could break a log line is not echoed).
 */
import { randomUUID } from 'node:crypto';

/** Header and metadata name of the correlation id. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The longest request id accepted from a client. */
export const MAX_REQUEST_ID = 200;

/**
 * `given` when it is an acceptable request id, else a new one.
 *
 * @example
 * acceptRequestId('abc-123'); // 'abc-123'
 * acceptRequestId('x'.repeat(201)); // a new UUID
 */
export function acceptRequestId(given: unknown): string {
  return typeof given === 'string' && given.length <= MAX_REQUEST_ID && /^[\x21-\x7e]+$/.test(given)
    ? given
    : randomUUID();
}
