import { z } from 'zod';
import {
  decomposeRequestSchema,
  fuseRequestSchema,
  scoreRequestSchema,
  searchRequestSchema,
} from '../../core/request-schemas.js';
import { ERROR_CATALOG } from '../../errors.js';
import { batchRequestSchema } from '../../core/batch.js';

const toSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

const envelopeSchema = (scores: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['cached', 'processed', 'query', 'service', 'timestamp'],
  properties: {
    cached: { type: 'boolean', description: 'true when served from the cache' },
    processed: { type: 'boolean' },
    query: { type: 'string' },
    scores,
    service: { type: 'string', description: 'the service that produced the result' },
    timestamp: { type: 'number', description: 'Unix time in seconds when the result was computed' },
    ...extra,
  },
});

const rankingSchema = {
  type: 'object',
  additionalProperties: { type: 'number' },
  description: 'document id to score',
};
const errorSchema = {
  type: 'object',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
  },
};

function post(summary: string, requestSchema: unknown, responseSchema: unknown) {
  const errorResponse = { content: { 'application/json': { schema: errorSchema } } };
  return {
    post: {
      summary,
      requestBody: { required: true, content: { 'application/json': { schema: requestSchema } } },
      responses: {
        '200': { description: 'OK', content: { 'application/json': { schema: responseSchema } } },
        '400': { description: 'bad request or unknown service', ...errorResponse },
        '401': { description: 'missing or invalid bearer token', ...errorResponse },
        '413': { description: 'body too large', ...errorResponse },
        '500': { description: 'engine failure', ...errorResponse },
        '503': { description: 'overloaded; see Retry-After', ...errorResponse },
      },
    },
  };
}

/** The OpenAPI 3.1 document served at `/openapi.json`. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'irserve',
      version: '1',
      description: 'Retrieval server: search, score, fuse, decompose, pipelines and content.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths: {
      '/ping': {
        get: {
          summary: 'Liveness (never needs a token)',
          security: [],
          responses: { '200': { description: '{"status":"pong"}' } },
        },
      },
      '/avail': {
        get: {
          summary: 'Services and collections this instance serves',
          responses: { '200': { description: 'availability listing' } },
        },
      },
      '/search': post(
        'Search a service',
        toSchema(searchRequestSchema),
        envelopeSchema(rankingSchema),
      ),
      '/score': post(
        'Score passages against a query',
        toSchema(scoreRequestSchema),
        envelopeSchema({ type: 'array', items: { type: 'number' } }),
      ),
      '/fuse': post(
        'Fuse several rankings',
        toSchema(fuseRequestSchema),
        envelopeSchema(rankingSchema),
      ),
      '/decompose_query': post(
        'Decompose a query into sub-queries',
        toSchema(decomposeRequestSchema),
        envelopeSchema({}, { queries: { type: 'array', items: { type: 'string' } } }),
      ),
      '/batch': post(
        'Several search, score, fuse or decompose_query calls in one request (irserve extension)',
        toSchema(batchRequestSchema),
        {
          type: 'object',
          required: ['responses'],
          properties: {
            responses: {
              type: 'array',
              description: 'one per call, in order: the status and body it would have had alone',
              items: {
                type: 'object',
                required: ['status', 'body'],
                properties: { status: { type: 'integer' }, body: { type: 'object' } },
              },
            },
          },
        },
      ),
      '/pipeline': post(
        'Run a pipeline such as {bm25, bm25-title}RRF%50 >> bm25',
        {
          type: 'object',
          required: ['pipeline', 'query'],
          properties: {
            pipeline: { type: 'string' },
            query: { type: 'string' },
            collection: { type: 'string', description: 'required when a stage reranks' },
            runtime_kwargs: { type: 'object', additionalProperties: { type: 'object' } },
            explain: { type: 'boolean' },
          },
        },
        envelopeSchema(rankingSchema, {
          collection: { type: 'string' },
          pipeline: { type: 'string' },
        }),
      ),
      '/content': post(
        'Look up a document',
        {
          type: 'object',
          required: ['collection', 'id'],
          properties: {
            collection: { type: 'string' },
            id: { type: 'string' },
            view: { type: 'string' },
          },
        },
        { type: 'object' },
      ),
    },
  };
}
