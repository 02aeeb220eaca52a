/**
 * A deterministic embedder engine for tests: bag-of-words counts hashed into 8 dimensions,
 * L2-normalised. It has `embedBatch` (the embedder capability back-ends use) and a score role.
 */
import type { BatchOptions, ScoreRequest } from 'irserve/plugin';

export const TOY_DIM = 8;

export function toyVector(text: string): Float32Array {
  const vector = new Float32Array(TOY_DIM);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[hash % TOY_DIM]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}

export class ToyEmbedder {
  /** The signal of the last batch embedded, for tests that check a back-end passes it on. */
  static lastSignal: AbortSignal | undefined;
  calls = 0;

  async embedBatch(
    requests: { text: string; kind: 'query' | 'passage' }[],
    options?: BatchOptions,
  ): Promise<Float32Array[]> {
    this.calls++;
    ToyEmbedder.lastSignal = options?.signal;
    return requests.map((request) => toyVector(request.text));
  }

  async scoreBatch(requests: ScoreRequest[]): Promise<number[][]> {
    return requests.map((request) => request.passages.map(() => 0));
  }
}
