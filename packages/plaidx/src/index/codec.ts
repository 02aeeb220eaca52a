/**
 * ColBERT's residual codec: each token embedding is its centroid plus, per dimension, one of
 * 2^nbits bucket weights. The bucket numbers are packed `8 / nbits` dimensions per byte in
 * ColBERT's order (numpy `packbits` of each number's bits, least significant bit first), so
 * files written by ColBERT, PLAID-X, next-plaid and irserve decode alike.
 */
export const SUPPORTED_NBITS = [1, 2, 4] as const;

export interface ResidualCodec {
  readonly nbits: number;
  readonly dim: number;
  /** Bytes per packed residual row: `dim * nbits / 8`. */
  readonly packedDim: number;
  /** The 2^nbits - 1 cutoffs between buckets (compression only). */
  readonly cutoffs: Float32Array;
  /** The 2^nbits values a residual dimension decodes to. */
  readonly weights: Float32Array;
  /** For byte value b, the bucket of its k-th dimension at `b * perByte + k`. */
  readonly byteBuckets: Uint8Array;
  /** PLAID's decompression lookup table: the weight of byte b's k-th dimension at `b * perByte + k`. */
  readonly byteWeights: Float32Array;
  /** For byte value b, the sum of its dimensions' squared weights (a residual's norm, per byte). */
  readonly byteSquares: Float32Array;
  readonly perByte: number;
}

/**
 * Builds the codec; `dim * nbits` must be a multiple of 8.
 *
 * @example const codec = makeCodec(2, 128, cutoffs, weights); codec.packedDim // 32
 */
export function makeCodec(
  nbits: number,
  dim: number,
  cutoffs: Float32Array,
  weights: Float32Array,
): ResidualCodec {
  const perByte = 8 / nbits;
  const byteBuckets = new Uint8Array(256 * perByte);
  for (let byte = 0; byte < 256; byte++) {
    for (let k = 0; k < perByte; k++) {
      let bucket = 0;
      for (let b = 0; b < nbits; b++) bucket |= ((byte >> (7 - k * nbits - b)) & 1) << b;
      byteBuckets[byte * perByte + k] = bucket;
    }
  }
  const byteWeights = new Float32Array(256 * perByte);
  const byteSquares = new Float32Array(256);
  for (let i = 0; i < byteWeights.length; i++) {
    byteWeights[i] = weights[byteBuckets[i]!] ?? 0;
    byteSquares[Math.floor(i / perByte)]! += byteWeights[i]! * byteWeights[i]!;
  }
  return {
    nbits,
    dim,
    packedDim: (dim * nbits) / 8,
    cutoffs,
    weights,
    byteBuckets,
    byteWeights,
    byteSquares,
    perByte,
  };
}

/** Decodes embedding `row` (centroid `code`) into `out` at `outOffset`. */
export function decompressRow(
  codec: ResidualCodec,
  centroids: Float32Array,
  code: number,
  residuals: Uint8Array,
  row: number,
  out: Float32Array,
  outOffset: number,
): void {
  const { dim, packedDim, perByte, byteWeights } = codec;
  const base = row * packedDim;
  const centroid = code * dim;
  for (let p = 0; p < packedDim; p++) {
    const byte = residuals[base + p]! * perByte;
    const d = p * perByte;
    for (let k = 0; k < perByte; k++) {
      out[outOffset + d + k] = centroids[centroid + d + k]! + byteWeights[byte + k]!;
    }
  }
}

/** Packs the residual `values` (dim floats at `offset`) into `out` at row `row`. */
export function compressRow(
  codec: ResidualCodec,
  values: Float32Array,
  offset: number,
  out: Uint8Array,
  row: number,
): void {
  const { dim, nbits, packedDim, cutoffs } = codec;
  const base = row * packedDim;
  out.fill(0, base, base + packedDim);
  for (let d = 0; d < dim; d++) {
    const bucket = bucketize(cutoffs, values[offset + d]!);
    for (let b = 0; b < nbits; b++) {
      const position = d * nbits + b;
      if ((bucket >> b) & 1) out[base + (position >> 3)]! |= 0x80 >> (position & 7);
    }
  }
}

/** torch.bucketize (right=False): the number of cutoffs strictly below `value`. */
function bucketize(cutoffs: Float32Array, value: number): number {
  let bucket = 0;
  while (bucket < cutoffs.length && cutoffs[bucket]! < value) bucket++;
  return bucket;
}
