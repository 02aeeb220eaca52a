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

/**
 * The request minus its envelope field (`service`): what reaches the engine. A fresh object
 * (object rest copies in one step, about five times faster than rebuilding it key by key).
 */
export function engineFields(body: Record<string, unknown>): Record<string, unknown> {
  const { service: _service, ...fields } = body;
  return fields;
}
