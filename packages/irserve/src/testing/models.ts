/**
 * Tiny deterministic "models" for tests: texts that share words get close vectors, with no
 * weights to load. An engine's test indexes documents with the same function its stand-in model
 * server answers queries with.
 */

/** FNV-1a of a word, as an unsigned 32-bit integer. */
export function wordHash(word: string): number {
  let hash = 2166136261;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** The lower-cased words (letters and digits) of `text`, in order. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/**
 * A bag-of-words embedding: each word hashed to one of `dim` axes, L2-normalised.
 *
 * @example
 * bagOfWords('jet engines', 64) // two axes at 1/√2
 */
export function bagOfWords(text: string, dim: number): Float32Array {
  const vector = new Float32Array(dim);
  for (const word of words(text)) vector[wordHash(word) % dim]! += 1;
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm > 0) for (let i = 0; i < dim; i++) vector[i] = vector[i]! / Math.sqrt(norm);
  return vector;
}
