/**
 * Empty queries, one behaviour on every engine (docs/errors.md, "Empty queries"): a search
 * whose query is empty or only whitespace has nothing to search with and finds nothing, without
 * calling a model or a back-end.
 */
import type { Scores } from './contract.js';

/**
 * Whether `request.query` is empty or only whitespace.
 *
 * @example isBlankQuery({ query: ' \n' }) // true
 */
export function isBlankQuery(request: { query: string }): boolean {
  return request.query.trim() === '';
}

/**
 * `search` run on the requests that are not blank (in order); the blank ones get `{}`.
 * `blank` decides which are (an engine that takes pre-encoded vectors searches those).
 *
 * @example
 * return searchNonBlank(requests, (asked) => this.#search(asked));
 */
export async function searchNonBlank<R extends { query: string }>(
  requests: readonly R[],
  search: (asked: R[]) => Promise<Scores[]>,
  blank: (request: R) => boolean = isBlankQuery,
): Promise<Scores[]> {
  const asked = requests.flatMap((request, i) => (blank(request) ? [] : [i]));
  const results = requests.map(() => Object.create(null) as Scores);
  if (asked.length === 0) return results;
  const found = await search(asked.map((i) => requests[i]!));
  asked.forEach((i, j) => (results[i] = found[j]!));
  return results;
}
