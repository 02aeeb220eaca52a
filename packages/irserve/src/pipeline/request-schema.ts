import { z } from '../prebundled/zod.js';
import { timeoutField } from '../core/request-deadline.js';

/** Longest pipeline expression accepted (a parse is linear; this bounds the work per request). */
export const MAX_PIPELINE_LENGTH = 10_000;

const positiveInteger = z
  .number({ error: 'must be a positive integer' })
  .int('must be a positive integer')
  .positive('must be a positive integer');

/**
 * The `/pipeline` body. Unknown fields are refused rather than ignored: a pipeline has no single
 * engine to pass them to, and per-stage fields go in `runtime_kwargs`.
 */
export const pipelineRequestSchema = z.strictObject({
  pipeline: z
    .string({ error: 'must be a string (a pipeline expression)' })
    .min(1, 'must not be empty')
    .max(MAX_PIPELINE_LENGTH, `is too long (at most ${MAX_PIPELINE_LENGTH} characters)`),
  query: z
    .string({ error: 'must be a string' })
    .max(1_000_000, 'is too long (at most 1,000,000 characters)'),
  /** Where rerank stages read documents; required only when a stage reranks. */
  collection: z.string({ error: 'must be a string naming a collection' }).min(1).optional(),
  /** Stage label to extra request fields for that stage's engine. */
  runtime_kwargs: z
    .record(z.string(), z.record(z.string(), z.unknown()), {
      error: 'must be an object of stage label to an object of fields',
    })
    .optional(),
  /** Add a per-stage trace (service, role, sizes, cached, milliseconds) to the response. */
  explain: z.boolean({ error: 'must be true or false' }).optional(),
  /** A top-N cut of the final result (RoutIR ignores this field; irserve applies it). */
  limit: positiveInteger.optional(),
  /** Seconds the caller will wait; every stage shares the one deadline. */
  timeout: timeoutField,
});

export type PipelineRequest = z.output<typeof pipelineRequestSchema>;

/** The fields `plainPipelineRequest` checks by hand; any other (runtime_kwargs, timeout) goes to zod. */
const PLAIN_FIELDS = new Set(['pipeline', 'query', 'collection', 'explain', 'limit']);

/**
 * `body` itself when it certainly passes `pipelineRequestSchema` (checked by hand, without the
 * copy zod makes, for the common body of a pipeline, a query and a collection); otherwise
 * undefined, and the schema decides, with its messages. Never accepts what the schema rejects.
 */
export function plainPipelineRequest(body: unknown): PipelineRequest | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  for (const key in fields) if (!PLAIN_FIELDS.has(key)) return undefined;
  const { pipeline, query, collection, explain, limit } = fields;
  const valid =
    typeof pipeline === 'string' &&
    pipeline.length > 0 &&
    pipeline.length <= MAX_PIPELINE_LENGTH &&
    typeof query === 'string' &&
    query.length <= 1_000_000 &&
    (collection === undefined || (typeof collection === 'string' && collection.length > 0)) &&
    (explain === undefined || typeof explain === 'boolean') &&
    (limit === undefined || (Number.isSafeInteger(limit) && (limit as number) > 0));
  return valid ? (fields as PipelineRequest) : undefined;
}
