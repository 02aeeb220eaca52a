import type { Scores } from '../engines/contract.js';
import { emptyScores, mayBeIntegerKey } from '../engines/fusion/rankings.js';

export { emptyScores };

/**
 * The top `n` documents of a ranking (`%N`); the ranking itself when `n` is undefined or it has
 * at most `n` documents. The result lists them by descending score, then ascending id, so cuts
 * are deterministic among ties (ties at the boundary keep the smaller ids).
 */
export function topN(scores: Scores, n: number | undefined): Scores {
  return cutRanking(scores, n, undefined).scores;
}

/** A score map and what is known of it, so that nobody reads it again to learn it. */
export interface Ranking {
  readonly scores: Scores;
  /** Its keys in `Object.keys` order, when known. */
  readonly keys: readonly string[] | undefined;
  /** True when its own key order is known to list its scores best first (none is NaN). */
  readonly ranked: boolean;
}

/**
 * `topN` of a ranking whose keys the caller may already have (`keys`, in `Object.keys` order:
 * a result check read them), with what is known of the result. Nothing cut: the same map, keys
 * and `ranked`. Cut: the kept ids best first, which is their `Object.keys` order when no id
 * begins with a digit (none is integer-like, enumerated first): the keys are then those ids and
 * the map is ranked; else the keys are undefined and `ranked` false.
 */
export function cutRanking(
  scores: Scores,
  n: number | undefined,
  keys: readonly string[] | undefined,
  ranked = false,
): Ranking {
  if (n === undefined) return { scores, keys, ranked };
  const ids = keys ?? Object.keys(scores);
  const count = ids.length;
  if (count <= n) return { scores, keys: ids, ranked };
  // Scores in an array and the order as indexes into it: no pair per document, and no
  // comparator called from the sort builtin (both were most of the cut, with the garbage).
  // Plain arrays, not typed ones: a typed array this size gets a buffer outside the heap, which
  // costs about five times more to make and burdens every young collection until it dies.
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) values[i] = scores[ids[i]!]!;
  const order = isRanked(ids, values) ? undefined : rankedOrder(ids, values);
  const out = emptyScores();
  const kept = new Array<string>(n);
  let inOrder = true;
  let numbers = true;
  for (let i = 0; i < n; i++) {
    const at = order === undefined ? i : order[i]!;
    const id = ids[at]!;
    const score = values[at]!; // the score as read (a double: the same number)
    out[id] = score;
    kept[i] = id;
    if (mayBeIntegerKey(id)) inOrder = false;
    if (score !== score) numbers = false; // NaN, which no checked result holds
  }
  return inOrder
    ? { scores: out, keys: kept, ranked: numbers }
    : { scores: out, keys: undefined, ranked: false };
}

/**
 * Whether document `a` ranks above document `b`: a higher score, or an equal one and a smaller
 * id (a NaN score, which no checked result holds, compares as a tie, as it always did here).
 */
function ranksAbove(
  ids: readonly string[],
  values: readonly number[],
  a: number,
  b: number,
): boolean {
  const x = values[a]!;
  const y = values[b]!;
  return x > y || (!(x < y) && ids[a]! < ids[b]!);
}

/** Whether the map's own order is already the ranked order (engines usually fill them so). */
function isRanked(ids: readonly string[], values: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (!ranksAbove(ids, values, i - 1, i)) return false;
  return true;
}

/**
 * The indexes of `ids` in ranked order, by a bottom-up merge sort whose comparison is inlined.
 * Ids are distinct, so the order is total and any correct sort gives this same result.
 */
function rankedOrder(ids: readonly string[], values: readonly number[]): number[] {
  const count = ids.length;
  let from = new Array<number>(count);
  let to = new Array<number>(count);
  for (let i = 0; i < count; i++) from[i] = i;
  for (let width = 1; width < count; width *= 2) {
    for (let low = 0; low < count; low += 2 * width) {
      const middle = Math.min(low + width, count);
      const high = Math.min(low + 2 * width, count);
      let i = low;
      let j = middle;
      let k = low;
      while (i < middle && j < high)
        to[k++] = ranksAbove(ids, values, from[j]!, from[i]!) ? from[j++]! : from[i++]!;
      while (i < middle) to[k++] = from[i++]!;
      while (j < high) to[k++] = from[j++]!;
    }
    const merged = to;
    to = from;
    from = merged;
  }
  return from;
}

/** Puts scores back on the ids they were computed for (`scores[i]` belongs to `ids[i]`). */
export function zipScores(ids: readonly string[], scores: readonly number[]): Scores {
  const out = emptyScores();
  for (let i = 0; i < ids.length; i++) out[ids[i]!] = scores[i]!;
  return out;
}
