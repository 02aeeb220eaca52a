import { exactSearch, MetricKind, type BatchMatches, type Matches } from 'usearch';
import type { Metric, SearchResult } from './types.js';

export function usearchMetric(metric: Metric): MetricKind {
  return metric === 'ip' ? MetricKind.IP : MetricKind.L2sq;
}

/**
 * Copies usearch matches (one query: `Matches`; several: `BatchMatches`, `kk` slots each) into
 * an `n * k` result, padding with -1. `toScore` turns a usearch distance into a score.
 */
export function fromMatches(
  matches: Matches | BatchMatches,
  n: number,
  k: number,
  kk: number,
  toScore: (distance: number, query: number) => number,
): SearchResult {
  const labels = new Int32Array(n * k).fill(-1);
  const scores = new Float32Array(n * k).fill(-Infinity);
  const counts = 'counts' in matches ? matches.counts : undefined;
  for (let q = 0; q < n; q++) {
    const found = Math.min(k, counts ? Number(counts[q]) : matches.keys.length);
    for (let i = 0; i < found; i++) {
      labels[q * k + i] = Number(matches.keys[q * kk + i]);
      scores[q * k + i] = toScore(matches.distances[q * kk + i]!, q);
    }
  }
  return { labels, scores };
}

/**
 * usearch's native `exactSearch` reads a typed array from the start of its ArrayBuffer,
 * ignoring `byteOffset` (usearch 2.25, javascript/lib.cpp), so a subarray would be searched as
 * the wrong rows. Views that do not start their buffer are copied.
 */
export function ownBuffer(a: Float32Array): Float32Array {
  return a.byteOffset === 0 ? a : a.slice();
}

/** `exactSearch` made safe for views (see `ownBuffer`). */
export function exactSearchRows(
  dataset: Float32Array,
  queries: Float32Array,
  dim: number,
  k: number,
  metric: Metric,
  threads: number,
): Matches | BatchMatches {
  const kind = usearchMetric(metric);
  return exactSearch(ownBuffer(dataset), ownBuffer(queries), dim, k, kind, threads);
}
