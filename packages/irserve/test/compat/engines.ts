/**
 * Engines for the compat and MCP tests: a deterministic hashing embedder with query/passage
 * prompts (as Dense applies them), a Dense-like engine that searches, scores and embeds with
 * the same vectors, and a sparse embedder.
 */
import type {
  EmbedRequest,
  ScoreRequest,
  SearchRequest,
  SparseVector,
} from '../../src/engines/contract.js';

const PROMPTS = { query: 'query: ', passage: 'passage: ' } as const;

function hashToken(token: string): number {
  let h = 2166136261;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A unit vector of `dim` values: hashed word counts of the prompted text. */
export function hashVector(text: string, dim: number): Float32Array {
  const vector = new Float32Array(dim);
  for (const token of text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
    vector[hashToken(token) % dim]! += 1;
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dim; i++) vector[i]! /= norm;
  return vector;
}

/** Embeds `prompt + text`; records every batch it receives. */
export class HashEmbedder {
  static batches: EmbedRequest[][] = [];
  /** Milliseconds each batch takes: a busy engine is what makes a burst queue into batches. */
  static delayMs = 0;
  readonly dim: number;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.dim = typeof config.dim === 'number' ? config.dim : 16;
  }
  async embedBatch(requests: EmbedRequest[]): Promise<Float32Array[]> {
    HashEmbedder.batches.push(requests);
    if (HashEmbedder.delayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, HashEmbedder.delayMs));
    return requests.map(({ text, kind }) => hashVector(PROMPTS[kind] + text, this.dim));
  }
}

/** Returns vectors of the wrong type, for the result checks. */
export class BrokenEmbedder {
  async embedBatch(requests: EmbedRequest[]) {
    return requests.map(() => [1, 2, 3]) as unknown as Float32Array[];
  }
}

/**
 * A Dense-like engine: documents from its config embedded as passages, queries as queries,
 * inner-product search and scoring, and `embedBatch` for the same vectors.
 */
export class TinyDense {
  readonly docs: Record<string, string>;
  readonly dim: number;
  constructor({ config }: { config: Record<string, unknown> }) {
    this.docs = (config.docs as Record<string, string> | undefined) ?? {};
    this.dim = typeof config.dim === 'number' ? config.dim : 64;
  }
  async embedBatch(requests: EmbedRequest[]): Promise<Float32Array[]> {
    return requests.map(({ text, kind }) => hashVector(PROMPTS[kind] + text, this.dim));
  }
  async searchBatch(requests: SearchRequest[]) {
    return requests.map(({ query, limit }) => {
      const q = hashVector(PROMPTS.query + query, this.dim);
      const scored = Object.entries(this.docs).map(
        ([id, text]) => [id, dot(q, hashVector(PROMPTS.passage + text, this.dim))] as const,
      );
      scored.sort((a, b) => b[1] - a[1]);
      return Object.fromEntries(scored.slice(0, limit));
    });
  }
  async scoreBatch(requests: ScoreRequest[]) {
    return requests.map(({ query, passages }) => {
      const q = hashVector(PROMPTS.query + query, this.dim);
      return passages.map((p) =>
        typeof p === 'string' ? dot(q, hashVector(PROMPTS.passage + p, this.dim)) : 0,
      );
    });
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Word counts as a sparse vector over hashed word ids. */
export class CountSparse {
  async embedSparseBatch(requests: EmbedRequest[]): Promise<SparseVector[]> {
    return requests.map(({ text }) => {
      const counts = new Map<number, number>();
      for (const token of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const id = hashToken(token) % 30522;
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      const indices = [...counts.keys()].sort((a, b) => a - b);
      return { indices, values: indices.map((i) => counts.get(i)!) };
    });
  }
}

export const COMPAT_ENGINES = [HashEmbedder, BrokenEmbedder, TinyDense, CountSparse];
