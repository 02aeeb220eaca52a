// Reciprocal rank fusion as a caller writes it, without irserve: the side that benchmarks of
// irserve's pipelines compare against.
import { byScoreThenId } from './ranking.mjs';

/** RRF (k = 60) of score maps: the best `limit` [id, score] pairs. */
export function rrfByHand(lists, limit) {
  const fused = new Map();
  for (const scores of lists)
    Object.entries(scores)
      .sort(byScoreThenId)
      .forEach(([id], rank) => fused.set(id, (fused.get(id) ?? 0) + 1 / (60 + rank + 1)));
  return [...fused].sort(byScoreThenId).slice(0, limit);
}
