/**
 * Lucene's document-length norms: a length is stored in one byte (`SmallFloat.intToByte4`,
 * exact below 24, then 4 significant bits), and BM25 uses the decoded length
 * (`BM25Similarity.LENGTH_TABLE`). irserve stores the same byte, so scores match Lucene's.
 */

/** `SmallFloat.NUM_FREE_VALUES`: lengths below this are stored exactly. */
const NUM_FREE_VALUES = 24;

/** `SmallFloat.longToInt4`: 4 significant bits, the highest implicit. */
function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i;
  const shift = numBits - 4;
  const encoded = (i >>> shift) & 0x07;
  return encoded | ((shift + 1) << 3);
}

/** `SmallFloat.int4ToLong`. */
function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/**
 * The norm byte of a document length (`SmallFloat.intToByte4`).
 *
 * @example
 * lengthToNorm(10) // 10
 * normToLength(lengthToNorm(1000)) // 984
 */
export function lengthToNorm(length: number): number {
  const n = Math.min(Math.max(0, Math.floor(length)), 0x7fffffff);
  if (n < NUM_FREE_VALUES) return n;
  return NUM_FREE_VALUES + longToInt4(n - NUM_FREE_VALUES);
}

/** The length a norm byte stands for (`SmallFloat.byte4ToInt`). */
export function normToLength(norm: number): number {
  if (norm < NUM_FREE_VALUES) return norm;
  return Math.min(NUM_FREE_VALUES + int4ToLong(norm - NUM_FREE_VALUES), 0x7fffffff);
}
