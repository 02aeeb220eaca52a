/**
 * `query_vector`: a pre-encoded query in a request (`{"token": weight}`), sent directly or
 * through a pipeline's `runtime_kwargs`. Checked like any client input: a clear 400 naming the
 * field, never an engine failure.
 */
import { badRequest } from 'irserve/plugin';
import type { SparseVector } from '../encoders/types.js';

export const MAX_QUERY_TERMS = 10_000;
const MAX_TOKEN_LENGTH = 1_000;

/**
 * The request's query vector, or undefined when it has none.
 *
 * @example requestVector({ query_vector: { cat: 1.5 } }) // { cat: 1.5 }
 */
export function requestVector(request: Record<string, unknown>): SparseVector | undefined {
  const value = request.query_vector;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw badRequest('query_vector: must be an object of token to weight');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_QUERY_TERMS)
    throw badRequest(`query_vector: more than ${MAX_QUERY_TERMS} terms`);
  const vector: SparseVector = Object.create(null) as SparseVector;
  for (const [token, weight] of entries) {
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH)
      throw badRequest(`query_vector: tokens must be 1 to ${MAX_TOKEN_LENGTH} characters`);
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)
      throw badRequest(
        `query_vector["${token.slice(0, 50)}"]: must be a finite non-negative number`,
      );
    vector[token] = weight;
  }
  return vector;
}
