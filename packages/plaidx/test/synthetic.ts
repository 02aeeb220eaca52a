/**
 * A clustered token-embedding corpus: token "types" are random unit vectors, each passage
 * draws its tokens from the types of one topic, plus noise, so PLAID's centroids and pruning
 * behave as on real ColBERT embeddings. Seeded, so tests are repeatable.
 */
import { seededRandom } from '@irserve/dense';
import type { TokenShard } from '../src/build/token-shards.js';
import type { TokenMatrix } from '../src/search/query.js';

export interface Corpus {
  shards: TokenShard[];
  queries: TokenMatrix[];
  dim: number;
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

function unitVector(
  out: Float32Array,
  offset: number,
  dim: number,
  around: Float32Array | undefined,
  aroundOffset: number,
  noise: number,
  random: () => number,
): void {
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    const v = (around ? around[aroundOffset + j]! : 0) + noise * gaussian(random);
    out[offset + j] = v;
    norm += v * v;
  }
  for (let j = 0; j < dim; j++) out[offset + j]! /= Math.sqrt(norm);
}

export function syntheticCorpus(options: {
  passages: number;
  dim: number;
  shards: number;
  queries: number;
  seed?: number;
}): Corpus {
  const { passages, dim } = options;
  const random = seededRandom(options.seed ?? 7);
  const typeCount = 512;
  // Noise of norm about 0.35 around a token type: cosine about 0.94, as ColBERT tokens sit
  // near their centroids.
  const noise = 0.35 / Math.sqrt(dim);
  const types = new Float32Array(typeCount * dim);
  for (let t = 0; t < typeCount; t++) unitVector(types, t * dim, dim, undefined, 0, 1, random);
  const topics = 32;
  const topicType = (topic: number) => (topic * 16 + Math.floor(random() * 32)) % typeCount;
  const perShard = Math.ceil(passages / options.shards);
  const shards: TokenShard[] = [];
  for (let s = 0; s < options.shards; s++) {
    const count = Math.min(perShard, passages - s * perShard);
    const doclens = Int32Array.from({ length: count }, () => 4 + Math.floor(random() * 8));
    const rows = doclens.reduce((a, b) => a + b, 0);
    const features = new Float32Array(rows * dim);
    let row = 0;
    for (const length of doclens) {
      const topic = Math.floor(random() * topics);
      for (let i = 0; i < length; i++, row++) {
        // Half the tokens follow the passage's topic, the rest are any type: passages of one
        // topic differ, as real passages do.
        const type = random() < 0.5 ? topicType(topic) : Math.floor(random() * typeCount);
        unitVector(features, row * dim, dim, types, type * dim, noise, random);
      }
    }
    shards.push({
      features,
      dim,
      doclens,
      ids: Array.from({ length: count }, (_, i) => `p${s * perShard + i}`),
    });
  }
  // A query paraphrases one passage: noisy copies of some of its tokens.
  const queries = Array.from({ length: options.queries }, () => {
    const shard = shards[Math.floor(random() * shards.length)]!;
    const rows = shard.features.length / dim;
    const vectors = new Float32Array(8 * dim);
    const start = Math.floor(random() * Math.max(1, rows - 8));
    for (let t = 0; t < 8; t++)
      unitVector(
        vectors,
        t * dim,
        dim,
        shard.features,
        Math.min(rows - 1, start + t) * dim,
        noise,
        random,
      );
    return { vectors, length: 8, dim };
  });
  return { shards, queries, dim };
}
