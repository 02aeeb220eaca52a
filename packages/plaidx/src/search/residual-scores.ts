/**
 * PLAID's stage 4 without decompressing: a token's exact score is its centroid's score (known
 * from stage 1) plus the residual's inner product with the query token, and the residual is a
 * bucket weight per dimension. A table per query token gives, for each packed byte position
 * and byte value, the inner product of those `8 / nbits` dimensions, so a token costs
 * `dim * nbits / 8` lookups instead of `dim` multiply-adds. Equal to decompress-then-MaxSim.
 */
import type { ResidualCodec } from '../index/codec.js';
import type { PlaidIndex } from '../index/plaid-index.js';
import type { TokenMatrix } from './query.js';

/** `table[((t * packedDim) + p) * 256 + byte]`: query token t's product with byte p's dims. */
export function residualTable(codec: ResidualCodec, query: TokenMatrix): Float32Array {
  const { packedDim, perByte, byteBuckets, weights, dim } = codec;
  const table = new Float32Array(query.length * packedDim * 256);
  const products = new Float32Array(perByte * weights.length);
  for (let t = 0; t < query.length; t++) {
    for (let p = 0; p < packedDim; p++) {
      for (let k = 0; k < perByte; k++) {
        const q = query.vectors[t * dim + p * perByte + k]!;
        for (let w = 0; w < weights.length; w++) products[k * weights.length + w] = q * weights[w]!;
      }
      const base = (t * packedDim + p) * 256;
      for (let byte = 0; byte < 256; byte++) {
        let sum = 0;
        for (let k = 0; k < perByte; k++)
          sum += products[k * weights.length + byteBuckets[byte * perByte + k]!]!;
        table[base + byte] = sum;
      }
    }
  }
  return table;
}

/** Exact MaxSim of the query with passage `pid`'s decompressed tokens. */
export function residualMaxSim(
  index: PlaidIndex,
  scores: Float32Array,
  table: Float32Array,
  qlen: number,
  pid: number,
  perToken: Float32Array,
): number {
  const { packedDim } = index.codec;
  const { residuals, codes } = index;
  perToken.fill(-Infinity);
  for (let e = index.docOffsets[pid]!; e < index.docOffsets[pid + 1]!; e++) {
    const row = e * packedDim;
    const centroidRow = codes[e]! * qlen;
    for (let t = 0; t < qlen; t++) {
      let s = scores[centroidRow + t]!;
      const base = t * packedDim * 256;
      for (let p = 0; p < packedDim; p++) s += table[base + p * 256 + residuals[row + p]!]!;
      if (s > perToken[t]!) perToken[t] = s;
    }
  }
  let total = 0;
  for (let t = 0; t < qlen; t++) total += perToken[t] === -Infinity ? 0 : perToken[t]!;
  return total;
}
