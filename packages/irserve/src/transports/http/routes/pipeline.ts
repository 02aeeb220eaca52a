import type { FastifyInstance } from 'fastify';
import type { AppCore } from '../../../core/app-core.js';
import { pipelineRequestSchema } from '../../../pipeline/request-schema.js';
import { callOptions } from '../call-options.js';
import type { RouteDoc } from '../openapi/route-doc.js';

const pipelineDoc: RouteDoc = {
  operationId: 'pipeline',
  summary: 'Run a pipeline such as {bm25, dense}RRF%50 >> rerank',
  tags: ['pipelines'],
  body: { name: 'PipelineRequest', schema: pipelineRequestSchema },
  response: { name: 'PipelineResponse', schema: (responses) => responses.pipelineResponseSchema },
  example: {
    request: {
      pipeline: '{bm25, bm25-title}RRF%50 >> rerank',
      query: 'wing flutter',
      collection: 'cranfield',
      explain: true,
    },
  },
};

/**
 * `POST /pipeline`: the body goes to the core's pipeline runner unchanged; errors are thrown as
 * IrserveError and mapped by the server's error handler. The call options carry the request id
 * and the relay hop count (the runner forwards both to every stage).
 */
export function pipelineRoutes(server: FastifyInstance, core: AppCore): void {
  server.post('/pipeline', { config: { openapi: pipelineDoc } }, (request, reply) =>
    core.pipelines.run(request.body, callOptions(request, reply)),
  );
}
