/**
 * PLAID's stage 4 without materialising the decompressed tokens. A token is its centroid plus
 * a bucket weight per dimension, and ColBERT L2-normalises it after decompressing
 * (`IndexScorer.score_pids`: `normalize(D_packed)`), so its score with query token t is
 * `(c·q_t + r·q_t) / |c + r|`:
 * - `c·q_t` is the centroid score from stage 1;
 * - `r·q_t` comes from a table per query, indexed by packed byte position and byte value (each
 *   byte holds `8 / nbits` dimensions), as PLAID's decompression lookup tables do: `dim *
 *   nbits / 8` lookups per query token instead of `dim` multiply-adds;
 * - `|c + r|² = |c|² + 2 c·r + |r|²`, with `|r|²` a lookup per byte and `c·r` one pass over
 *   the token's decoded weights.
 * Equal to decompress, normalise, then MaxSim.
 */
import type { ResidualCodec } from '../index/codec.js';
import type { PlaidIndex } from '../index/plaid-index.js';
import type { TokenMatrix } from './query.js';

/**
 * `table[((p * 256) + byte) * qlen + t]`: query token t's product with the weights that byte
 * value `byte` at packed position `p` decodes to. Laid out so that one byte's products for
 * every query token are contiguous. A byte's product is its high nibble's plus its low
 * nibble's, so each position costs two 16-entry tables and 256 additions per query token
 * instead of 256 * (8 / nbits) multiply-adds.
 *
 * @example const table = residualTable(index.codec, query); // packedDim * 256 * qlen floats
 */
export function residualTable(codec: ResidualCodec, query: TokenMatrix): Float32Array {
  const { packedDim, dim } = codec;
  const qlen = query.length;
  // The query transposed (dimension-major), so inner loops run over contiguous tokens.
  const columns = new Float32Array(dim * qlen);
  for (let t = 0; t < qlen; t++)
    for (let d = 0; d < dim; d++) columns[d * qlen + t] = query.vectors[t * dim + d]!;
  const table = new Float32Array(packedDim * 256 * qlen);
  const high = new Float32Array(16 * qlen);
  const low = new Float32Array(16 * qlen);
  for (let p = 0; p < packedDim; p++) {
    nibbleProducts(codec, columns, qlen, p, true, high);
    nibbleProducts(codec, columns, qlen, p, false, low);
    for (let byte = 0; byte < 256; byte++) {
      const row = (p * 256 + byte) * qlen;
      const h = (byte >> 4) * qlen;
      const l = (byte & 15) * qlen;
      for (let t = 0; t < qlen; t++) table[row + t] = high[h + t]! + low[l + t]!;
    }
  }
  return table;
}

/** For each nibble value n, the products of the dimensions it holds (high or low half of byte p). */
function nibbleProducts(
  codec: ResidualCodec,
  columns: Float32Array,
  qlen: number,
  p: number,
  isHigh: boolean,
  out: Float32Array,
): void {
  const { perByte, byteWeights } = codec;
  const half = perByte / 2;
  const first = isHigh ? 0 : half;
  out.fill(0);
  for (let n = 0; n < 16; n++) {
    // The byte whose other nibble is zero; its dimensions in this half decode as n's.
    const byte = isHigh ? n << 4 : n;
    for (let k = first; k < first + half; k++) {
      const weight = byteWeights[byte * perByte + k]!;
      const column = (p * perByte + k) * qlen;
      for (let t = 0; t < qlen; t++) out[n * qlen + t]! += weight * columns[column + t]!;
    }
  }
}

/** Scores finalists exactly; one per query, its buffers reused across passages. */
export class ResidualScorer {
  readonly #index: PlaidIndex;
  readonly #scores: Float32Array;
  readonly #table: Float32Array;
  readonly #qlen: number;
  readonly #token: Float64Array;
  readonly #best: Float64Array;

  /** `scores`: stage 1's centroid scores of this query. */
  constructor(index: PlaidIndex, query: TokenMatrix, scores: Float32Array) {
    this.#index = index;
    this.#scores = scores;
    this.#qlen = query.length;
    this.#table = residualTable(index.codec, query);
    this.#token = new Float64Array(query.length);
    this.#best = new Float64Array(query.length);
  }

  /**
   * Exact MaxSim of the query with passage `pid`'s decompressed, normalised tokens.
   *
   * @example new ResidualScorer(index, query, centroidScores(index, query)).maxSim(42)
   */
  maxSim(pid: number): number {
    const { tokens } = this.#index;
    const best = this.#best;
    const qlen = this.#qlen;
    best.fill(-Infinity);
    const codes = tokens.codes(pid);
    const residuals = tokens.residuals(pid);
    for (let e = 0; e < codes.length; e++) {
      const inverseNorm = this.#tokenScores(residuals, e, codes[e]!);
      const token = this.#token;
      for (let t = 0; t < qlen; t++) {
        const s = token[t]! * inverseNorm;
        if (s > best[t]!) best[t] = s;
      }
    }
    let total = 0;
    for (let t = 0; t < qlen; t++) total += best[t] === -Infinity ? 0 : best[t]!;
    return total;
  }

  /** Fills #token with the unnormalised scores of token e of `residuals`; returns 1 / |c + r|. */
  #tokenScores(residuals: Uint8Array, e: number, code: number): number {
    const { codec, centroids, centroidSquaredNorms } = this.#index;
    const { packedDim, perByte, byteWeights, byteSquares, dim } = codec;
    const qlen = this.#qlen;
    const table = this.#table;
    const token = this.#token;
    const scoreRow = code * qlen;
    for (let t = 0; t < qlen; t++) token[t] = this.#scores[scoreRow + t]!;
    let centroidDotResidual = 0;
    let residualSquared = 0;
    const rowAt = e * packedDim;
    const centroidAt = code * dim;
    for (let p = 0; p < packedDim; p++) {
      const byte = residuals[rowAt + p]!;
      residualSquared += byteSquares[byte]!;
      const weightsAt = byte * perByte;
      const dimAt = centroidAt + p * perByte;
      for (let k = 0; k < perByte; k++)
        centroidDotResidual += centroids[dimAt + k]! * byteWeights[weightsAt + k]!;
      const tableAt = (p * 256 + byte) * qlen;
      for (let t = 0; t < qlen; t++) token[t]! += table[tableAt + t]!;
    }
    const squared = centroidSquaredNorms[code]! + 2 * centroidDotResidual + residualSquared;
    // torch.nn.functional.normalize divides by max(|x|, 1e-12).
    return 1 / Math.max(Math.sqrt(Math.max(squared, 0)), 1e-12);
  }
}
