// Recall of a batch of top-k label lists against the exact ones, for the dense benches.

/**
 * Mean fraction of each query's true top `k` (in `truth`, `k` labels a query) found in its
 * top `k` of `labels`.
 *
 * @example recallAtK(index.search(queries, 10).labels, exact, 10) // 0.93
 */
export function recallAtK(labels, truth, k) {
  const nq = truth.length / k;
  let hits = 0;
  for (let q = 0; q < nq; q++) {
    const want = new Set(truth.slice(q * k, (q + 1) * k));
    for (let i = 0; i < k; i++) if (want.has(labels[q * k + i])) hits++;
  }
  return hits / (nq * k);
}
