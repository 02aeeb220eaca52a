import type { FastifyInstance } from 'fastify';
import type { AppCore } from '../../../core/app-core.js';
import { callOptions } from '../call-options.js';

/**
 * `POST /pipeline`: the body goes to the core's pipeline runner unchanged; errors are thrown as
 * IrserveError and mapped by the server's error handler. The call options carry the request id
 * and the relay hop count (the runner forwards both to every stage).
 */
export function pipelineRoutes(server: FastifyInstance, core: AppCore): void {
  server.post('/pipeline', (request, reply) =>
    core.pipelines.run(request.body, callOptions(request, reply)),
  );
}
