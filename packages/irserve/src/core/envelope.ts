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
 * The request minus its envelope fields (`service`, and `timeout`, which sets the deadline):
 * what reaches the engine. A fresh object
 * (object rest copies in one step, about five times faster than rebuilding it key by key).
 */
export function engineFields<T extends Record<string, unknown>>(body: T): WithoutService<T> {
  const { service: _service, timeout: _timeout, ...fields } = body;
  // TypeScript types the rest as Omit<T, 'service'>, which drops the known keys of a T with an
  // index signature (a looseObject's output); the object is exactly WithoutService<T>.
  return fields as unknown as WithoutService<T>;
}

/** `T` minus its envelope keys; unlike `Omit`, keeps the other keys beside an index signature. */
type WithoutService<T> = {
  [K in keyof T as K extends 'service' | 'timeout' ? never : K]: T[K];
};

/**
 * Marks an envelope whose `scores` map is known to list its keys best first (a pipeline's cut
 * made it so): the HTTP serializer then writes it as it is without reading it to find out. Not
 * enumerable, so the envelope's JSON, equality and copies are unchanged.
 */
export const SCORES_BEST_FIRST = Symbol('irserve.scoresBestFirst');

/** Sets SCORES_BEST_FIRST on `envelope`. */
export function markScoresBestFirst(envelope: object): void {
  Object.defineProperty(envelope, SCORES_BEST_FIRST, { value: true });
}
