/**
 * Pre-encoded token vectors in a request: `query_vectors` (one row per query token) for
 * search and score, `passage_vectors` (one such matrix per passage) for score. Every problem
 * is a 400 naming the field and the position.
 */
import { badRequest } from 'irserve/plugin';
import type { TokenMatrix } from '../search/query.js';

export interface MatrixLimits {
  /** Required row length (the index's dimension), or undefined to take the first row's. */
  dim: number | undefined;
  maxRows: number;
}

/**
 * Checks and packs a JSON matrix of token vectors.
 *
 * @example tokenRows([[0.6, 0.8]], 'query_vectors', { dim: 2, maxRows: 512 }).length // 1
 */
export function tokenRows(value: unknown, field: string, limits: MatrixLimits): TokenMatrix {
  if (!Array.isArray(value)) throw badRequest(`${field}: must be an array of token vectors`);
  if (value.length === 0) throw badRequest(`${field}: must hold at least one token vector`);
  if (value.length > limits.maxRows)
    throw badRequest(
      `${field}: ${value.length} token vectors exceed the limit of ${limits.maxRows}`,
    );
  const first: unknown = value[0];
  const dim = limits.dim ?? (Array.isArray(first) ? first.length : 0);
  if (dim < 1) throw badRequest(`${field}[0]: must be a non-empty array of numbers`);
  const vectors = new Float32Array(value.length * dim);
  value.forEach((row: unknown, i) => {
    if (!Array.isArray(row)) throw badRequest(`${field}[${i}]: must be an array of numbers`);
    if (row.length !== dim)
      throw badRequest(
        `${field}[${i}]: has ${row.length} numbers, expected ${dim}${limits.dim === undefined ? '' : ' (the index dimension)'}`,
      );
    row.forEach((x: unknown, j) => {
      if (typeof x !== 'number' || !Number.isFinite(x))
        throw badRequest(`${field}[${i}][${j}]: must be a finite number`);
      vectors[i * dim + j] = x;
    });
  });
  return { vectors, length: value.length, dim };
}

/** `passage_vectors`: one token matrix per passage, as many as `passages`. */
export function passageRows(value: unknown, count: number, limits: MatrixLimits): TokenMatrix[] {
  if (!Array.isArray(value))
    throw badRequest('passage_vectors: must be an array with one matrix per passage');
  if (value.length !== count)
    throw badRequest(`passage_vectors: ${value.length} matrices for ${count} passages`);
  return value.map((matrix: unknown, i) => tokenRows(matrix, `passage_vectors[${i}]`, limits));
}
