import type { FastifyRequest } from 'fastify';
import { IrserveError } from '../../errors.js';
import { HOPS_HEADER, MAX_HOPS } from '../../federation/hops.js';
import type { CallOptions } from '../../registry/types.js';

/**
 * Call options of an HTTP request: its id (`x-request-id`, accepted or generated) and how many
 * instances it has crossed through relays. Too many hops means `server_imports` form a loop.
 */
export function callOptions(request: FastifyRequest): CallOptions {
  const header = request.headers[HOPS_HEADER];
  const hops = typeof header === 'string' && /^\d{1,3}$/.test(header) ? Number(header) : 0;
  if (hops > MAX_HOPS) {
    throw new IrserveError(
      'ERR_BAD_REQUEST',
      `request crossed more than ${MAX_HOPS} instances: server_imports form a loop`,
    );
  }
  return { requestId: request.id, hops };
}
