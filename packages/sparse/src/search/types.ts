/** What every search strategy takes and returns. */

/** Keep only passages whose label is `wanted` (a request's `subset`). */
export interface PassageFilter {
  labels: Int32Array;
  wanted: number;
}

export interface SearchOptions {
  /** Passages to return. */
  k: number;
  filter?: PassageFilter | undefined;
}

/** Passage numbers and scores, best first; only passages with a positive score. */
export interface PassageHits {
  ids: Int32Array;
  scores: Float64Array;
  /** Postings or forward entries read: the work done, for benches and tests. */
  work: number;
  /** Passages whose score was computed. */
  scored: number;
}

export function accepts(filter: PassageFilter | undefined, passage: number): boolean {
  return filter === undefined || filter.labels[passage] === filter.wanted;
}
