/**
 * Exact late-interaction scoring: for each query token the best inner product with any
 * document token, summed over the query tokens (ColBERT's MaxSim).
 */
import { dot } from '@irserve/dense';
import type { TokenMatrix } from './query.js';

/**
 * MaxSim of `query` against `count` document tokens stored at `offset` (in rows) of `docs`.
 *
 * @example maxSim(query, passage.vectors, 0, passage.length) // 23.4
 */
export function maxSim(
  query: TokenMatrix,
  docs: Float32Array,
  offset: number,
  count: number,
): number {
  const { dim, vectors, length } = query;
  let total = 0;
  for (let t = 0; t < length; t++) {
    let best = -Infinity;
    for (let e = 0; e < count; e++) {
      const s = dot(vectors, t * dim, docs, (offset + e) * dim, dim);
      if (s > best) best = s;
    }
    total += count === 0 ? 0 : best;
  }
  return total;
}
