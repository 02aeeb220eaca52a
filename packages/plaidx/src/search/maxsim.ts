/**
 * Exact late-interaction scoring: for each query token the best inner product with any
 * document token, summed over the query tokens (ColBERT's MaxSim).
 */
import { dot } from '@irserve/dense';
import { dot4 } from './dots.js';
import type { TokenMatrix } from './query.js';

/**
 * MaxSim of `query` against `count` document tokens stored at `offset` (in rows) of `docs`.
 * `scratch` (at least `2 * query.length` numbers) spares an allocation per passage when
 * scoring many.
 *
 * @example maxSim(query, passage.vectors, 0, passage.length) // 23.4
 */
export function maxSim(
  query: TokenMatrix,
  docs: Float32Array,
  offset: number,
  count: number,
  scratch: Float64Array = new Float64Array(2 * query.length),
): number {
  const { dim, vectors, length } = query;
  if (count === 0 || length === 0) return 0;
  // scratch[0 .. length): best score per query token; [length .. 2 length): this row's.
  scratch.fill(-Infinity, 0, length);
  const blocked = length - (length % 4);
  for (let e = 0; e < count; e++) {
    const ao = (offset + e) * dim;
    for (let t = 0; t < blocked; t += 4) dot4(docs, ao, vectors, t * dim, dim, scratch, length + t);
    for (let t = blocked; t < length; t++)
      scratch[length + t] = dot(docs, ao, vectors, t * dim, dim);
    for (let t = 0; t < length; t++)
      if (scratch[length + t]! > scratch[t]!) scratch[t] = scratch[length + t]!;
  }
  let total = 0;
  for (let t = 0; t < length; t++) total += scratch[t]!;
  return total;
}
