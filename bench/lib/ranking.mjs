// Ranking a score map in a benchmark. `Object.entries(scores)` is not a ranking: a JavaScript
// object lists integer-like ids ("358", "53") first in ascending numeric order. Sort explicitly,
// equal scores by ascending id, the rule irserve's `%N` cuts use, so a by-hand side keeps the
// same documents as the pipeline it is compared with.

/** Comparator of `[id, score]` pairs: higher score first, then smaller id. */
export function byScoreThenId([idA, a], [idB, b]) {
  if (a !== b) return b - a;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

/** The best `n` of a score map, as a map (what a `%n` cut keeps). */
export function topScores(scores, n) {
  return Object.fromEntries(Object.entries(scores).sort(byScoreThenId).slice(0, n));
}
