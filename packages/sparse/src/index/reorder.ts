/**
 * Passage reordering at build time, so that block-max bounds are tight: passages about the
 * same things should sit in the same blocks. A cheap clustering (a few rounds of spherical
 * k-means on each passage's "signature", its heaviest mid-frequency terms) groups them;
 * clusters are laid out one after another. Very frequent terms say nothing about topic and are
 * left out of signatures, and so are terms of a single passage. Linear in the corpus size; the
 * build reports its time. Deterministic: the same corpus gives the same order.
 */
import type { Impacts } from './types.js';

export interface ForwardIndex {
  offsets: Uint32Array;
  terms: Uint32Array;
  impacts: Impacts;
}

export interface ReorderOptions {
  /** Passages per cluster on average (the number of centroids is passages / clusterSize). */
  clusterSize: number;
  /** Terms per passage signature. */
  signatureTerms: number;
  /** k-means rounds (assignment, then centroids recomputed). */
  rounds: number;
}

export const DEFAULT_REORDER: ReorderOptions = { clusterSize: 256, signatureTerms: 12, rounds: 3 };

/** A term in at most this fraction of passages can be in a signature. */
const MAX_SIGNATURE_DF = 0.01;

/** Each passage's heaviest informative terms, with weights normalised to unit length. */
interface Signatures {
  terms: Uint32Array;
  weights: Float32Array;
  width: number;
}

function signatures(forward: ForwardIndex, vocabularySize: number, width: number): Signatures {
  const passages = forward.offsets.length - 1;
  const df = new Uint32Array(vocabularySize);
  for (const term of forward.terms) df[term]!++;
  const maxDf = Math.max(2, Math.floor(passages * MAX_SIGNATURE_DF));
  const terms = new Uint32Array(passages * width).fill(0xffffffff);
  const weights = new Float32Array(passages * width);
  for (let p = 0; p < passages; p++) {
    const base = p * width;
    let kept = 0;
    for (let j = forward.offsets[p]!; j < forward.offsets[p + 1]!; j++) {
      const term = forward.terms[j]!;
      if (df[term]! < 2 || df[term]! > maxDf) continue;
      const weight = forward.impacts[j]!;
      // Insertion into the passage's top `width`, heaviest first.
      let at = Math.min(kept, width - 1);
      if (kept === width && weights[base + at]! >= weight) continue;
      while (at > 0 && weights[base + at - 1]! < weight) {
        weights[base + at] = weights[base + at - 1]!;
        terms[base + at] = terms[base + at - 1]!;
        at--;
      }
      weights[base + at] = weight;
      terms[base + at] = term;
      if (kept < width) kept++;
    }
    normalise(weights, base, kept);
  }
  return { terms, weights, width };
}

function normalise(weights: Float32Array, base: number, count: number): void {
  let norm = 0;
  for (let i = 0; i < count; i++) norm += weights[base + i]! ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < count; i++) weights[base + i]! /= norm;
}

/** Centroids as an inverted list: for each term, the centroids holding it and their weights. */
interface CentroidLists {
  offsets: Uint32Array;
  centroids: Uint32Array;
  weights: Float32Array;
  count: number;
}

function centroidLists(centroids: Signatures, count: number, vocabularySize: number) {
  const offsets = new Uint32Array(vocabularySize + 1);
  const { terms, weights, width } = centroids;
  for (let i = 0; i < count * width; i++) if (terms[i]! !== 0xffffffff) offsets[terms[i]! + 1]!++;
  for (let t = 0; t < vocabularySize; t++) offsets[t + 1]! += offsets[t]!;
  const next = offsets.slice(0, vocabularySize);
  const ids = new Uint32Array(offsets[vocabularySize]!);
  const values = new Float32Array(offsets[vocabularySize]!);
  for (let i = 0; i < count * width; i++) {
    const term = terms[i]!;
    if (term === 0xffffffff) continue;
    const slot = next[term]!++;
    ids[slot] = Math.floor(i / width);
    values[slot] = weights[i]!;
  }
  return { offsets, centroids: ids, weights: values, count };
}

/** The closest centroid of every passage (cosine of signatures); -1 shares no term with any. */
function assign(passages: Signatures, lists: CentroidLists): Int32Array {
  const count = passages.terms.length / passages.width;
  const assignment = new Int32Array(count).fill(-1);
  const scores = new Float64Array(lists.count);
  const touched = new Uint32Array(lists.count);
  for (let p = 0; p < count; p++) {
    let touchedCount = 0;
    for (let i = p * passages.width; i < (p + 1) * passages.width; i++) {
      const term = passages.terms[i]!;
      if (term === 0xffffffff) break;
      const weight = passages.weights[i]!;
      for (let j = lists.offsets[term]!; j < lists.offsets[term + 1]!; j++) {
        const c = lists.centroids[j]!;
        if (scores[c] === 0) touched[touchedCount++] = c;
        scores[c]! += weight * lists.weights[j]!;
      }
    }
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < touchedCount; i++) {
      const c = touched[i]!;
      if (scores[c]! > bestScore || (scores[c] === bestScore && c < best)) {
        best = c;
        bestScore = scores[c]!;
      }
      scores[c] = 0;
    }
    assignment[p] = best;
  }
  return assignment;
}

/** Passages grouped by cluster (-1 last): a counting sort, keeping corpus order inside. */
function groupByCluster(assignment: Int32Array, clusters: number) {
  const starts = new Uint32Array(clusters + 2);
  for (const c of assignment) starts[(c < 0 ? clusters : c) + 1]!++;
  for (let c = 0; c <= clusters; c++) starts[c + 1]! += starts[c]!;
  const next = starts.slice(0, clusters + 1);
  const members = new Uint32Array(assignment.length);
  assignment.forEach((c, p) => {
    members[next[c < 0 ? clusters : c]!++] = p;
  });
  return { starts, members };
}

/** Each centroid as the normalised top terms of its members' summed signatures. */
function recomputeCentroids(
  passages: Signatures,
  groups: { starts: Uint32Array; members: Uint32Array },
  clusters: number,
  vocabularySize: number,
): Signatures {
  const { width } = passages;
  const terms = new Uint32Array(clusters * width).fill(0xffffffff);
  const weights = new Float32Array(clusters * width);
  const sums = new Float64Array(vocabularySize);
  const touched: number[] = [];
  for (let c = 0; c < clusters; c++) {
    for (let m = groups.starts[c]!; m < groups.starts[c + 1]!; m++) {
      const p = groups.members[m]!;
      for (let i = p * width; i < (p + 1) * width && passages.terms[i] !== 0xffffffff; i++) {
        const term = passages.terms[i]!;
        if (sums[term] === 0) touched.push(term);
        sums[term]! += passages.weights[i]!;
      }
    }
    touched.sort((a, b) => sums[b]! - sums[a]! || a - b);
    const kept = Math.min(width, touched.length);
    for (let i = 0; i < kept; i++) {
      terms[c * width + i] = touched[i]!;
      weights[c * width + i] = sums[touched[i]!]!;
    }
    normalise(weights, c * width, kept);
    for (const term of touched) sums[term] = 0;
    touched.length = 0;
  }
  return { terms, weights, width };
}

/** Seeds: the signatures of passages spread evenly over the corpus. */
function seedCentroids(passages: Signatures, clusters: number): Signatures {
  const { width } = passages;
  const count = passages.terms.length / width;
  const terms = new Uint32Array(clusters * width);
  const weights = new Float32Array(clusters * width);
  for (let c = 0; c < clusters; c++) {
    const p = Math.floor(((c + 0.5) * count) / clusters);
    terms.set(passages.terms.subarray(p * width, (p + 1) * width), c * width);
    weights.set(passages.weights.subarray(p * width, (p + 1) * width), c * width);
  }
  return { terms, weights, width };
}

/**
 * The new passage order: `order[i]` is the corpus number of the passage stored i-th.
 *
 * @example const order = clusterOrder(forward, vocabularySize, DEFAULT_REORDER);
 */
export function clusterOrder(
  forward: ForwardIndex,
  vocabularySize: number,
  options: ReorderOptions = DEFAULT_REORDER,
): Uint32Array {
  const passages = forward.offsets.length - 1;
  const clusters = Math.max(1, Math.round(passages / options.clusterSize));
  const sigs = signatures(forward, vocabularySize, options.signatureTerms);
  let centroids = seedCentroids(sigs, clusters);
  let groups = groupByCluster(new Int32Array(passages).fill(-1), clusters);
  for (let round = 0; round < options.rounds; round++) {
    const assignment = assign(sigs, centroidLists(centroids, clusters, vocabularySize));
    groups = groupByCluster(assignment, clusters);
    if (round + 1 < options.rounds)
      centroids = recomputeCentroids(sigs, groups, clusters, vocabularySize);
  }
  // Inside a cluster, passages sharing their heaviest term sit together.
  const order = groups.members;
  const heaviest = (p: number) => sigs.terms[p * sigs.width]!;
  for (let c = 0; c <= clusters; c++) {
    const slice = order.subarray(groups.starts[c], groups.starts[c + 1]);
    slice.sort((a, b) => heaviest(a) - heaviest(b) || a - b);
  }
  return order;
}

/**
 * The forward index with its passages in `order`.
 *
 * @example const reordered = permuteForward(forward, clusterOrder(forward, vocabularySize));
 */
export function permuteForward(forward: ForwardIndex, order: Uint32Array): ForwardIndex {
  const offsets = new Uint32Array(forward.offsets.length);
  for (let i = 0; i < order.length; i++) {
    const p = order[i]!;
    offsets[i + 1] = offsets[i]! + forward.offsets[p + 1]! - forward.offsets[p]!;
  }
  const terms = new Uint32Array(forward.terms.length);
  const newImpacts: Impacts =
    forward.impacts instanceof Float32Array
      ? new Float32Array(forward.impacts.length)
      : new Uint16Array(forward.impacts.length);
  for (let i = 0; i < order.length; i++) {
    const p = order[i]!;
    terms.set(forward.terms.subarray(forward.offsets[p], forward.offsets[p + 1]), offsets[i]);
    newImpacts.set(
      forward.impacts.subarray(forward.offsets[p], forward.offsets[p + 1]),
      offsets[i],
    );
  }
  return { offsets, terms, impacts: newImpacts };
}
