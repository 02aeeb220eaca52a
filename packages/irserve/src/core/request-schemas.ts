import { z } from '../prebundled/zod.js';
import { timeoutField } from './request-deadline.js';

const serviceName = z
  .string({ error: 'must be a string naming a service' })
  .min(1, 'must not be empty');
/** The longest query a request may carry. */
const MAX_QUERY_LENGTH = 1_000_000;
const query = z
  .string({ error: 'must be a string' })
  .max(MAX_QUERY_LENGTH, 'is too long (at most 1,000,000 characters)');
/** Fields irserve reads; every other field is kept and reaches the engine (RoutIR drops them). */
export const searchRequestSchema = z.looseObject({
  service: serviceName,
  query,
  limit: z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .optional(),
  subset: z.string({ error: 'must be a string' }).optional(),
  timeout: timeoutField,
});

export type SearchRequestBody = z.output<typeof searchRequestSchema>;

/**
 * `body` itself when it certainly passes `searchRequestSchema` (checked by hand, without the
 * copy zod makes: the hot path of a cache hit); otherwise undefined, and the schema decides,
 * with its messages. Never accepts what the schema rejects.
 */
export function plainSearchRequest(body: unknown): SearchRequestBody | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { service, query, limit, subset } = body as Record<string, unknown>;
  const valid =
    typeof service === 'string' &&
    service.length > 0 &&
    typeof query === 'string' &&
    query.length <= MAX_QUERY_LENGTH &&
    (limit === undefined || (Number.isSafeInteger(limit) && (limit as number) > 0)) &&
    (subset === undefined || typeof subset === 'string') &&
    (body as Record<string, unknown>).timeout === undefined;
  return valid ? (body as SearchRequestBody) : undefined;
}

/** A bytes passage: a list of base64 strings (one per part). */
const bytesPassage = z.array(z.string().base64('must be base64')).max(1024);
export const scoreRequestSchema = z.looseObject({
  service: serviceName,
  query,
  passages: z
    .array(z.union([z.string(), bytesPassage]), { error: 'must be an array of strings' })
    .max(100_000, 'has too many passages (at most 100,000)'),
  timeout: timeoutField,
});

export const fuseRequestSchema = z.looseObject({
  service: serviceName,
  query: query.default(''),
  scores: z
    .array(z.record(z.string(), z.number({ error: 'scores must be numbers' })), {
      error: 'must be an array of objects of document id to score',
    })
    .max(1024),
  timeout: timeoutField,
});

export const decomposeRequestSchema = z.looseObject({
  service: serviceName,
  query,
  limit: z
    .number()
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .optional(),
  timeout: timeoutField,
});
