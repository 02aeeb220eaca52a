import { badRequest, type SearchRequest } from 'irserve/plugin';

/** The fields of a search request a back-end reads, checked. */
export interface CheckedSearch {
  query: string;
  limit: number;
  subset: string | undefined;
}

/** Queries longer than this are refused before they reach a back-end (its parser pays for them). */
export const MAX_QUERY_CHARS = 16_384;

/**
 * Checks `limit` and `subset` of each request: a subset needs `subset_field` in the config
 * (the back-end filters on it), and is a short string.
 *
 * @example
 * searchRequests([{ query: 'cats', limit: 10 }], 'pg', undefined) // [{ query: 'cats', limit: 10, subset: undefined }]
 */
export function searchRequests(
  requests: readonly SearchRequest[],
  service: string,
  subsetField: string | undefined,
): CheckedSearch[] {
  return requests.map((request) => {
    if (!Number.isInteger(request.limit) || request.limit < 1)
      throw badRequest('limit: must be a positive integer');
    if (typeof request.query !== 'string') throw badRequest('query: must be a string');
    if (request.query.length > MAX_QUERY_CHARS)
      throw badRequest(`query: longer than ${MAX_QUERY_CHARS} characters`);
    const subset = request.subset;
    if (subset === undefined || subset === null)
      return { query: request.query, limit: request.limit, subset: undefined };
    if (typeof subset !== 'string' || subset.length === 0 || subset.length > 1024)
      throw badRequest('subset: must be a non-empty string of at most 1024 characters');
    if (subsetField === undefined)
      throw badRequest(
        `subset: service "${service}" has no subset_field, so it cannot filter by subset`,
      );
    return { query: request.query, limit: request.limit, subset };
  });
}
