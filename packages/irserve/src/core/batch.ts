/**
 * `POST /batch` (an irserve extension; RoutIR has no such endpoint): several search, score,
 * fuse or decompose calls in one request. A front relaying to an irserve remote sends the
 * concurrent requests of its clients as one batch, so the remote parses one HTTP request where
 * it would parse dozens (docs/federation.md). Each item is validated and answered on its own:
 * one bad item never fails the others.
 */
import { z } from '../prebundled/zod.js';
import { errorBody, toIrserveError } from '../errors.js';
import type { CallOptions } from '../registry/types.js';
import type { AppCore } from './app-core.js';
import { decomposeQuery, fuse, score, search } from './handlers.js';
import { redactPaths } from '../util/error-logging.js';
import { parseRequest } from './validate.js';

/** Most calls one batch may carry. */
export const MAX_BATCH_ITEMS = 1024;

export const BATCH_ENDPOINTS = ['search', 'score', 'fuse', 'decompose_query'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

export const batchRequestSchema = z.strictObject({
  requests: z
    .array(
      z.strictObject({
        endpoint: z.enum(BATCH_ENDPOINTS, {
          error: `must be one of ${BATCH_ENDPOINTS.join(', ')}`,
        }),
        body: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }),
      }),
      { error: 'must be an array of {endpoint, body}' },
    )
    .min(1, 'must hold at least one call')
    .max(MAX_BATCH_ITEMS, `holds too many calls (at most ${MAX_BATCH_ITEMS})`),
});

/** One answer of a batch: the status and body the same call would have had on its own. */
export interface BatchResponse {
  status: number;
  body: Record<string, unknown>;
}

const HANDLERS = {
  search,
  score,
  fuse,
  decompose_query: decomposeQuery,
} satisfies Record<BatchEndpoint, typeof search>;

/** Runs every call of a batch concurrently (so the services' batchers see them together). */
export async function runBatch(
  core: AppCore,
  body: unknown,
  options?: CallOptions,
): Promise<{ responses: BatchResponse[] }> {
  const { requests } = parseRequest(batchRequestSchema, body);
  const responses = await Promise.all(
    requests.map(async ({ endpoint, body: item }): Promise<BatchResponse> => {
      try {
        return { status: 200, body: await HANDLERS[endpoint](core, item, options) };
      } catch (error) {
        const mapped = toIrserveError(error);
        const body = errorBody(mapped);
        if (mapped.httpStatus >= 500) body.error = redactPaths(mapped.message);
        return { status: mapped.httpStatus, body };
      }
    }),
  );
  return { responses };
}
