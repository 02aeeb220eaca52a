import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TIMEOUT_HEADER, parseTimeoutHeader } from '../../core/request-deadline.js';
import { IrserveError } from '../../errors.js';
import { HOPS_HEADER, MAX_HOPS } from '../../core/hops.js';
import type { CallOptions } from '../../registry/types.js';
import { AbortScope } from '../../util/abort-scope.js';

/**
 * What aborts when the client closes its connection before the answer is sent: its
 * queued work is dropped and a running batch no one else waits for is abandoned.
 */
function disconnectScope(response: ServerResponse): AbortScope {
  // A scope: the deadlines and batchers below it listen without event listeners.
  const scope = new AbortScope();
  response.once('close', () => {
    // writableEnded rather than writableFinished: once the answer is handed over there is no
    // work left to drop, and light-my-request (`inject`) closes before it counts as finished,
    // which made every injected request build an error and abort a signal for nothing.
    if (!response.writableEnded)
      scope.abort(new IrserveError('ERR_CLIENT_CLOSED', 'client closed the connection'));
  });
  return scope;
}

/**
 * Call options of an HTTP request: its id (`x-request-id`, accepted or generated), how many
 * instances it has crossed through relays (too many means `server_imports` form a loop), its
 * deadline (`x-request-timeout` seconds) and, given the reply, a signal for a client that leaves.
 *
 * @example
 * server.post('/search', (request, reply) => search(core, request.body, callOptions(request, reply)));
 */
export function callOptions(request: FastifyRequest, reply?: FastifyReply): CallOptions {
  const { headers } = request;
  const header = headers[HOPS_HEADER];
  const hops = typeof header === 'string' && /^\d{1,3}$/.test(header) ? Number(header) : 0;
  if (hops > MAX_HOPS) {
    throw new IrserveError(
      'ERR_BAD_REQUEST',
      `request crossed more than ${MAX_HOPS} instances: server_imports form a loop`,
    );
  }
  const seconds = parseTimeoutHeader(headers[TIMEOUT_HEADER]);
  const options: CallOptions = { requestId: request.id, hops };
  if (seconds !== undefined) options.deadline = Date.now() + seconds * 1000;
  if (reply) options.signal = disconnectScope(reply.raw);
  return options;
}
