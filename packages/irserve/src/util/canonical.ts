/**
 * A value with its object keys in sorted order, as nested `[key, value]` pairs, so that two
 * objects equal but for the order of their keys give the same JSON (cache keys, fingerprints).
 *
 * @example JSON.stringify(canonical({ b: 1, a: 2 })) === JSON.stringify(canonical({ a: 2, b: 1 }))
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.map(([key, inner]) => [key, canonical(inner)]);
}
