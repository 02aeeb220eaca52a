import type { BatchOptions, ScoreRequest } from 'irserve/plugin';
import type { QueryEmbedder } from './query-embedder.js';

export type Distance = 'inner_product' | 'cosine' | 'l2';

/**
 * The score role of a kNN back-end: query and passages embedded in one embedder call, each
 * passage scored with the same similarity the back-end ranks by (so search and score agree).
 *
 * @example
 * await similarity(embedder, [{ query: 'q', passages: ['a'] }], [['a']], 'cosine') // [[0.83]]
 */
export async function similarity(
  embedder: QueryEmbedder,
  requests: readonly ScoreRequest[],
  passages: readonly string[][],
  distance: Distance,
  options?: BatchOptions,
): Promise<number[][]> {
  const items = requests.flatMap((request, i) => [
    { text: request.query, kind: 'query' as const },
    ...passages[i]!.map((text) => ({ text, kind: 'passage' as const })),
  ]);
  const vectors = await embedder.embed(items, options);
  let next = 0;
  return requests.map((_, i) => {
    const query = vectors[next++]!;
    return passages[i]!.map(() => compare(query, vectors[next++]!, distance));
  });
}

/** Similarity (higher is better) of two vectors under a distance; the shorter length counts. */
export function compare(a: Float32Array, b: Float32Array, distance: Distance): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  let l2 = 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
    l2 += (x - y) * (x - y);
  }
  if (distance === 'inner_product') return dot;
  if (distance === 'l2') return -Math.sqrt(l2);
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
