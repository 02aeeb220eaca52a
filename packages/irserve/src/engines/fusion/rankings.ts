import type { FuseRequest, Scores } from '../contract.js';

/**
 * Where a caller that has already read the keys of a fuse request's rankings hands them on (the
 * pipeline, from its search stages' result checks and cuts): one array per ranking, each the
 * ranking's keys in `Object.keys` order, or undefined where unknown. A symbol, so that it is
 * never sent to a remote, written as JSON or part of a cache key; only irserve's rank-based rules
 * read it, to spare reading each ranking's keys again (about 5 µs for 100 ids).
 */
export const RANKING_KEYS = Symbol('irserve.rankingKeys');

/** The request's rankings' keys as the caller handed them on (see RANKING_KEYS), one per ranking. */
export function rankingKeys(request: FuseRequest): (readonly string[] | undefined)[] {
  const keys = (request as { [RANKING_KEYS]?: unknown })[RANKING_KEYS];
  return Array.isArray(keys) && keys.length === request.rankings.length
    ? (keys as (readonly string[] | undefined)[])
    : [];
}

/**
 * Ranks of the documents of one ranking, from 1, by descending score. Tied documents share the
 * best rank of their tie (competition ranking: 1, 2, 2, 4), so a result never depends on the
 * order of keys in the map, which the specification says is not significant.
 *
 * @example ranksOf({ a: 3, b: 5, c: 3 }) // Map { b => 1, a => 2, c => 2 }
 */
export function ranksOf(scores: Scores, ids?: readonly string[]): Map<string, number> {
  const ranks = new Map<string, number>();
  forEachRank(scores, (id, rank) => ranks.set(id, rank), ids);
  return ranks;
}

/**
 * Calls `visit` with each document of a ranking and its rank (as `ranksOf` gives them), best
 * first: for a rule that only adds something per rank, without a Map per ranking. `ids`, when
 * the caller has them, are the map's keys in `Object.keys` order (see RANKING_KEYS).
 *
 * @example forEachRank({ a: 3, b: 5, c: 3 }, (id, rank) => ...) // b 1, a 2, c 2
 */
export function forEachRank(
  scores: Scores,
  visit: (id: string, rank: number) => void,
  ids: readonly string[] = Object.keys(scores),
): void {
  // Each score read once (a lookup in a dictionary-mode map is the costly part of a pass), into
  // a plain array: a typed array gets a buffer outside the heap, costlier to make and collect.
  const values = new Array<number>(ids.length);
  for (let i = 0; i < ids.length; i++) values[i] = scores[ids[i]!]!;
  // Engines fill their maps best first: then the keys' own order is the sorted order (the sort
  // is stable), and no pair per document is made or sorted.
  const order = isBestFirst(values) ? undefined : byScore(values);
  let previous = Number.NaN;
  let rank = 0;
  for (let index = 0; index < ids.length; index++) {
    const at = order === undefined ? index : order[index]!;
    const score = values[at]!;
    if (score !== previous) rank = index + 1;
    previous = score;
    visit(ids[at]!, rank);
  }
}

/** Indexes of `values` by descending value, equal values in their own order (a stable sort). */
function byScore(values: readonly number[]): number[] {
  const order = Array.from(values.keys());
  return order.sort((x, y) => values[y]! - values[x]!);
}

/** Whether `values` (the map's scores in its own key order) never increase (NaN never does). */
function isBestFirst(values: readonly number[]): boolean {
  let previous = Infinity;
  for (const score of values) {
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

/**
 * A fused map being built: `add` sums into it as `addTo` does, and it keeps the ids in the order
 * they were first added, which is the map's `Object.keys` order unless an id is integer-like
 * (those are enumerated first): `keys` is then undefined. Spares the caller reading the keys of
 * the result again (the pipeline's cut of a fused map).
 */
export class FusedScores {
  readonly scores: Scores = emptyScores();
  readonly #ids: string[] = [];
  #inOrder = true;

  add(id: string, value: number): void {
    const now = this.scores[id];
    if (now === undefined) {
      this.#ids.push(id);
      if (mayBeIntegerKey(id)) this.#inOrder = false;
    }
    this.scores[id] = (now ?? 0) + value;
  }

  /** The map's keys in `Object.keys` order, or undefined when an id may be integer-like. */
  get keys(): readonly string[] | undefined {
    return this.#inOrder ? this.#ids : undefined;
  }
}

/**
 * Whether `id` may be an integer-like key (`"51"`), which an object enumerates before the others
 * whatever the insertion order: an id that begins with a digit may be; any other never is.
 *
 * @example mayBeIntegerKey('184') // true; mayBeIntegerKey('D184') // false
 */
export function mayBeIntegerKey(id: string): boolean {
  const first = id.charCodeAt(0);
  return first >= 48 && first <= 57;
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
