/** Scoring one passage vector against one query vector, as the index would score it. */
import { quantize } from '../corpus/parse-record.js';
import type { SparseVector } from '../encoders/types.js';

/**
 * Sum over shared tokens of the quantised weights' products (`trunc(50 w_q) * trunc(50 w_d)`
 * for quantisation 50; raw weights for 0), the score a search of the index would give.
 *
 * @example sparseScore({ cat: 1 }, { cat: 0.5, dog: 2 }, 50) // 50 * 25
 */
export function sparseScore(
  query: SparseVector,
  passage: SparseVector,
  quantization: number,
): number {
  let score = 0;
  for (const token of Object.keys(query).sort()) {
    const weight = passage[token];
    if (weight === undefined) continue;
    const q = quantization === 0 ? query[token]! : quantize(query[token]!, quantization);
    score += q * quantize(weight, quantization);
  }
  return score;
}
