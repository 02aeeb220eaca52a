/**
 * Queries and passages as BM25 sees them: a bag of analysed terms. A term repeated in the
 * query weighs that many times (Anserini's bag-of-words query boosts each term by its count).
 */
import type { Analyzer } from './analyzer.js';
import type { Bm25Index } from './bm25-index.js';
import { lengthToNorm } from './lucene-norms.js';
import type { WeightedTerm } from './search-types.js';
import { termScore } from './scoring.js';

/** Term to count. */
export function termCounts(analyzer: Analyzer, text: string): Map<string, number> {
  const counts = new Map<string, number>();
  analyzer.forEachTerm(text, (term) => counts.set(term, (counts.get(term) ?? 0) + 1));
  return counts;
}

/** The query's terms that occur in the index, weighted by count times idf. */
export function weightedQuery(index: Bm25Index, analyzer: Analyzer, query: string): WeightedTerm[] {
  const terms: WeightedTerm[] = [];
  for (const [term, count] of termCounts(analyzer, query)) {
    const id = index.termId(term);
    if (id >= 0) terms.push({ term: id, weight: count * index.idf(id) });
  }
  return terms;
}

/**
 * BM25 of a passage against a query, with the collection's idf and average length; the
 * passage's own length and term counts stand in for a document's. Query terms absent from the
 * collection get the idf of a term with document frequency 0.
 *
 * @example
 * scorePassage(index, analyzer, termCounts(analyzer, 'wing lift'), 'The lift of a wing')
 */
export function scorePassage(
  index: Bm25Index,
  analyzer: Analyzer,
  queryCounts: ReadonlyMap<string, number>,
  passage: string,
): number {
  const counts = termCounts(analyzer, passage);
  let length = 0;
  for (const count of counts.values()) length += count;
  const normInverse = index.normInverse[lengthToNorm(length)]!;
  let score = 0;
  for (const [term, queryCount] of queryCounts) {
    const tf = counts.get(term);
    if (tf === undefined) continue;
    const weight = queryCount * index.idf(index.termId(term));
    score += termScore(weight, tf, normInverse);
  }
  return score;
}
