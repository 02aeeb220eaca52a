/** Seeded randomness and small synthetic corpora for the sparse tests. */
import { SparseIndexBuilder } from '../../src/index/index-builder.js';
import {
  hasImpactOrder,
  type ImpactOrderedIndex,
  type SparseIndexData,
} from '../../src/index/types.js';
import type { PassageIdRule } from '../../src/index/passage-docs.js';

/** mulberry32: a small seeded generator, so failures replay. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RandomVector {
  id: string;
  vector: Record<string, number>;
}

/** Passages of `terms` random tokens (skewed towards low ranks) with weights in (0, max). */
export function randomVectors(
  random: () => number,
  count: number,
  options: { vocabulary: number; terms: number; maxWeight: number; idPrefix?: string },
): RandomVector[] {
  return Array.from({ length: count }, (_, i) => {
    const vector: Record<string, number> = {};
    const n = 1 + Math.floor(random() * options.terms);
    for (let j = 0; j < n; j++) {
      const rank = Math.floor(options.vocabulary * random() ** 2);
      vector[`t${rank}`] = random() * options.maxWeight;
    }
    return { id: `${options.idPrefix ?? 'p'}${i}`, vector };
  });
}

export function buildFromVectors(
  vectors: RandomVector[],
  options: {
    quantization: number;
    blockSize?: number;
    /** Build the impact-ordered lists (default true here; the builder's default is false). */
    impactOrdered?: boolean;
    /** Passages per impact-ordered slice: small by default, so searches cross many slices. */
    impactSlice?: number;
    passageIds?: PassageIdRule;
    reorder?: boolean;
  },
): SparseIndexData {
  const builder = new SparseIndexBuilder({
    quantization: options.quantization,
    blockSize: options.blockSize ?? 4,
    impactOrdered: options.impactOrdered ?? true,
    impactSlice: options.impactSlice ?? 64,
    passageIds: options.passageIds ?? 'none',
    reorder: options.reorder ? { clusterSize: 16, signatureTerms: 6, rounds: 3 } : false,
  });
  for (const { id, vector } of vectors) {
    const tokens = Object.keys(vector);
    const impacts = tokens.map((t) =>
      options.quantization === 0
        ? Math.fround(vector[t]!)
        : Math.trunc(vector[t]! * options.quantization),
    );
    const kept = tokens.map((_, i) => i).filter((i) => impacts[i]! > 0);
    builder.add({ id, tokens: kept.map((i) => tokens[i]!), impacts: kept.map((i) => impacts[i]!) });
  }
  return builder.finish();
}

/** `index` as an index with the impact-ordered lists (fails the test when it has none). */
export function withImpactOrder(index: SparseIndexData): ImpactOrderedIndex {
  if (!hasImpactOrder(index)) throw new Error('the test index has no impact-ordered lists');
  return index;
}
