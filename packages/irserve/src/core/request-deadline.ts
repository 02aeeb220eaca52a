import { z } from '../prebundled/zod.js';
import { badRequest } from '../errors.js';
import type { CallOptions } from '../registry/types.js';

/** The longest deadline a request may ask for, in seconds (one day). */
export const MAX_TIMEOUT_SECONDS = 86_400;

/** Header carrying a request's deadline as seconds from now (relays send what is left). */
export const TIMEOUT_HEADER = 'x-request-timeout';

/** The `timeout` body field: seconds the caller will wait (irserve's extension; RoutIR has none). */
export const timeoutField = z
  .number({ error: 'must be a number of seconds' })
  .positive('must be a positive number of seconds')
  .max(MAX_TIMEOUT_SECONDS, `must be at most ${MAX_TIMEOUT_SECONDS} seconds`)
  .optional();

/**
 * `options` with the deadline `seconds` from now, or the one it already has when that is
 * earlier (a header and a body field: the tighter wins).
 *
 * @example
 * withTimeout({ requestId: 'r1' }, 2); // { requestId: 'r1', deadline: Date.now() + 2000 }
 */
export function withTimeout(
  options: CallOptions | undefined,
  seconds: number | undefined,
): CallOptions | undefined {
  if (seconds === undefined) return options;
  const deadline = Date.now() + seconds * 1000;
  const earlier = options?.deadline === undefined ? deadline : Math.min(options.deadline, deadline);
  return { ...options, deadline: earlier };
}

/**
 * The seconds of an `x-request-timeout` header, or undefined when absent. A value that is not
 * a positive number of seconds (at most a day) is ERR_BAD_REQUEST naming the header.
 *
 * @example
 * parseTimeoutHeader('1.5'); // 1.5
 */
export function parseTimeoutHeader(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value[0] : value;
  const seconds = text !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw badRequest(
      `${TIMEOUT_HEADER}: must be a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}`,
      { fields: [TIMEOUT_HEADER] },
    );
  }
  return seconds;
}
