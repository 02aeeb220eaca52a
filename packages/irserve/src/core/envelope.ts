import type { ServiceResult } from '../registry/types.js';

/** The response envelope of the specification (search, score, fuse, decompose). */
export function envelope(
  service: string,
  query: string,
  result: ServiceResult<unknown>,
  key: 'scores' | 'queries' = 'scores',
): Record<string, unknown> {
  return {
    cached: result.cached,
    processed: true,
    query,
    [key]: result.value,
    service,
    timestamp: result.timestamp,
  };
}

/** Fields that are the request's envelope, not input for the engine. */
const ENVELOPE_FIELDS = new Set(['service']);

/** The request minus the envelope fields: what reaches the engine. */
export function engineFields(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!ENVELOPE_FIELDS.has(key)) out[key] = value;
  return out;
}
