import type { Scores } from '../contract.js';

/**
 * Ranks of the documents of one ranking, from 1, by descending score. Tied documents share the
 * best rank of their tie (competition ranking: 1, 2, 2, 4), so a result never depends on the
 * order of keys in the map, which the specification says is not significant.
 *
 * @example ranksOf({ a: 3, b: 5, c: 3 }) // Map { b => 1, a => 2, c => 2 }
 */
export function ranksOf(scores: Scores): Map<string, number> {
  const ranks = new Map<string, number>();
  let previous = Number.NaN;
  let rank = 0;
  let index = 0;
  const add = (id: string, score: number) => {
    index++;
    if (score !== previous) rank = index;
    previous = score;
    ranks.set(id, rank);
  };
  // Engines fill their maps best first: then the keys' own order is the sorted order (the sort
  // is stable), and no pair per document is made or sorted.
  const ids = Object.keys(scores);
  if (isBestFirst(scores, ids)) for (const id of ids) add(id, scores[id]!);
  else {
    // Pairs made from the keys (Object.entries is slow on dictionary-mode maps).
    const entries = ids.map((id): [string, number] => [id, scores[id]!]);
    for (const [id, score] of entries.sort((x, y) => y[1] - x[1])) add(id, score);
  }
  return ranks;
}

/** Whether `ids` (the map's keys in their own order) list non-increasing scores (NaN never does). */
function isBestFirst(scores: Scores, ids: readonly string[]): boolean {
  let previous = Infinity;
  for (const id of ids) {
    const score = scores[id]!;
    if (!(score <= previous)) return false;
    previous = score;
  }
  return true;
}

/**
 * An empty score map without a prototype: a document id such as `__proto__` is then an ordinary
 * key instead of a write to `Object.prototype`.
 */
export function emptyScores(): Scores {
  return Object.create(null) as Scores;
}

/** Adds `value` to `id` in `total` (a document absent so far starts at 0). */
export function addTo(total: Scores, id: string, value: number): void {
  total[id] = (total[id] ?? 0) + value;
}

/** Every document of every ranking, once, mapped to the number of rankings that hold it. */
export function occurrences(rankings: readonly Scores[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ranking of rankings)
    for (const id of Object.keys(ranking)) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** Smallest and largest score of a ranking; undefined for an empty one. */
export function extent(scores: Scores): { min: number; max: number } | undefined {
  let min = Infinity;
  let max = -Infinity;
  for (const value of Object.values(scores)) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return min === Infinity ? undefined : { min, max };
}
