/**
 * A query as the search kernels take it: the index's term ids in ascending order with their
 * weights, quantised the way the index's impacts are (`trunc(weight * quantization)`), so an
 * integer index scores exactly as Anserini's impact search does.
 */
import { quantize } from '../corpus/parse-record.js';

export interface QueryTerms {
  terms: Uint32Array;
  weights: Float64Array;
}

/** Token to term id of an index's vocabulary. */
export type TermLookup = ReadonlyMap<string, number>;

/**
 * Maps a `token -> weight` query onto the index: unknown tokens and zero weights drop out.
 *
 * @example queryTerms(new Map([['cat', 0]]), { cat: 1.2, dog: 3 }, 50) // terms [0], weights [60]
 */
export function queryTerms(
  lookup: TermLookup,
  vector: Readonly<Record<string, number>>,
  quantization: number,
): QueryTerms {
  const pairs: [number, number][] = [];
  for (const token of Object.keys(vector)) {
    const term = lookup.get(token);
    if (term === undefined) continue;
    const weight = quantization === 0 ? vector[token]! : quantize(vector[token]!, quantization);
    if (weight > 0) pairs.push([term, weight]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return {
    terms: Uint32Array.from(pairs, (pair) => pair[0]),
    weights: Float64Array.from(pairs, (pair) => pair[1]),
  };
}
