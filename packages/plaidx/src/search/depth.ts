/**
 * How deep PLAID searches: RoutIR's rules by the number of passages wanted, each setting
 * overridable in the service config and again per request.
 */
export interface SearchDepth {
  /** Centroids probed per query token (stage 1). */
  ncells: number;
  /** Centroids scoring below this for every query token are ignored in stage 2. */
  centroid_score_threshold: number;
  /** Candidates kept after stage 2; a quarter of them are scored exactly. */
  ndocs: number;
}

/**
 * RoutIR's depth for `k` passages: k <= 10: (1, 0.5, 256); k <= 100: (2, 0.45, 1024);
 * otherwise (2, 0.4, 2048).
 *
 * @example depthFor(10) // { ncells: 1, centroid_score_threshold: 0.5, ndocs: 256 }
 */
export function depthFor(k: number): SearchDepth {
  if (k <= 10) return { ncells: 1, centroid_score_threshold: 0.5, ndocs: 256 };
  if (k <= 100) return { ncells: 2, centroid_score_threshold: 0.45, ndocs: 1024 };
  return { ncells: 2, centroid_score_threshold: 0.4, ndocs: 2048 };
}

/** RoutIR's rule, then whatever `overrides` set (undefined fields keep the rule's value). */
export function resolveDepth(k: number, ...overrides: Partial<SearchDepth>[]): SearchDepth {
  const depth = depthFor(k);
  for (const layer of overrides) {
    if (layer.ncells !== undefined) depth.ncells = layer.ncells;
    if (layer.centroid_score_threshold !== undefined)
      depth.centroid_score_threshold = layer.centroid_score_threshold;
    if (layer.ndocs !== undefined) depth.ndocs = layer.ndocs;
  }
  return depth;
}
