/**
 * The JSON of a response body, with a `scores` map written best first. RoutIR's answers list
 * scores in rank order (Python dicts keep insertion order) and clients read the top k off the
 * front; a JavaScript object puts integer-like keys (`"51"`, `"184"`, as in MS MARCO or
 * Cranfield) first in ascending order, so `JSON.stringify` alone would lose the ranking.
 */
export function serializeBody(payload: unknown): string {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return JSON.stringify(payload);
  }
  const scores = (payload as Record<string, unknown>).scores;
  if (scores === null || typeof scores !== 'object' || Array.isArray(scores)) {
    return JSON.stringify(payload);
  }
  // Engines usually fill their maps best first with ids that are not integer-like: then the
  // map's own order is already right and JSON.stringify (much faster than the pieces below) keeps it.
  if (isBestFirst(scores)) return JSON.stringify(payload);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(payload)) {
    const json = key === 'scores' ? rankedScores(scores) : JSON.stringify(value);
    // As JSON.stringify does: members whose value has no JSON (undefined, functions) are left out.
    if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${parts.join(',')}}`;
}

/** Whether the map's own key order lists non-increasing numbers. */
function isBestFirst(scores: object): boolean {
  let previous = Infinity;
  for (const value of Object.values(scores)) {
    if (!(typeof value === 'number' && value <= previous)) return false;
    previous = value;
  }
  return true;
}

/** A score map's JSON, highest score first; equal scores keep the map's order. */
function rankedScores(scores: object): string {
  const entries = Object.entries(scores as Record<string, unknown>);
  entries.sort(([, a], [, b]) => rank(b) - rank(a));
  return `{${entries.map(([id, score]) => `${JSON.stringify(id)}:${JSON.stringify(score) ?? 'null'}`).join(',')}}`;
}

/** Non-numbers (never produced by engines) sort last instead of breaking the order. */
function rank(value: unknown): number {
  return typeof value === 'number' && !Number.isNaN(value) ? value : -Infinity;
}
