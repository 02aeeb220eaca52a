/** Vector arithmetic of the compat routes: Matryoshka truncation and L2 normalisation. */

/**
 * The first `dimensions` values of `vector`, re-normalised to unit length (how Matryoshka
 * models are used at a smaller size). A zero vector stays zero.
 *
 * @example
 * truncateVector(Float32Array.of(3, 4, 12), 2) // Float32Array [0.6, 0.8]
 */
export function truncateVector(vector: Float32Array, dimensions: number): Float32Array {
  return normalizeVector(vector.subarray(0, dimensions));
}

/** A unit-length copy of `vector` (a zero vector is returned as a zero copy). */
export function normalizeVector(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/**
 * An approximate token count for `usage` (no model tokenizer is at hand): words and
 * punctuation marks, within a small factor of BPE counts for English text. A loop over char
 * codes (non-ASCII counts as letters), several times faster than a Unicode regex: rerank
 * answers count every document.
 *
 * @example
 * approximateTokens('Hello, world!') // 4
 */
export function approximateTokens(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32) {
      inWord = false;
    } else if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128) {
      if (!inWord) count++;
      inWord = true;
    } else {
      count++;
      inWord = false;
    }
  }
  return count;
}
