/**
 * The (query, passage) pairs of a batch of score requests, each distinct pair once, and where
 * each request's scores come from: the reranker engines score the pairs, then spread them back.
 */
import { badRequest, type ScoreRequest } from 'irserve/plugin';

export interface Pair {
  query: string;
  passage: string;
}

export interface UniquePairs {
  pairs: Pair[];
  /** For each request, for each passage: its pair's index in `pairs`. */
  slots: number[][];
}

/**
 * Collects the distinct text pairs; a non-text passage is a 400 naming its index and `engine`.
 *
 * @example
 * const { pairs, slots } = uniquePairs(requests, 'MT5Reranker');
 * const scores = await scorer.score(pairs);
 * return slots.map((row) => row.map((slot) => scores[slot]!));
 */
export function uniquePairs(requests: readonly ScoreRequest[], engine: string): UniquePairs {
  const pairs: Pair[] = [];
  const keys = new Map<string, number>();
  const slots = requests.map((request) =>
    request.passages.map((passage, i) => {
      if (typeof passage !== 'string')
        throw badRequest(`passages[${i}]: the ${engine} engine scores text passages`);
      const key = JSON.stringify([request.query, passage]);
      let slot = keys.get(key);
      if (slot === undefined) {
        slot = pairs.push({ query: request.query, passage }) - 1;
        keys.set(key, slot);
      }
      return slot;
    }),
  );
  return { pairs, slots };
}
