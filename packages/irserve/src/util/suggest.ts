/** Levenshtein distance, for "did you mean" hints on unknown keys. */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/**
 * Names users bring from drivers, clients and other servers, with the irserve names they mean
 * (the first one a schema has is suggested): `url` is no typo of `ssl`, it is a
 * `connection_string`. A Map, so that a key such as `constructor` finds nothing.
 */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    url: ['connection_string', 'base_url', 'endpoint'],
    uri: ['connection_string', 'base_url', 'endpoint'],
    dsn: ['connection_string'],
    connection: ['connection_string'],
    connection_url: ['connection_string'],
    database_url: ['connection_string'],
    conn_str: ['connection_string'],
    db: ['database'],
    dbname: ['database'],
    username: ['user'],
    login: ['user'],
    pass: ['password'],
    key: ['api_key'],
    token: ['api_key'],
    apikey: ['api_key'],
    max_seq_length: ['max_length'],
  }),
);

/**
 * The candidate `word` most likely means: a synonym it has among the candidates, else the
 * closest by edit distance when close enough to be a typo (one edit for a word of up to three
 * letters, where two would make `url` into `ssl`), else the only candidate of which `word` is
 * one `_`-separated part (`index` for `index_path`).
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const synonym = SYNONYMS.get(lower)?.find((name) => candidates.includes(name));
  if (synonym !== undefined) return synonym;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3));
  if (bestDistance <= allowed) return best;
  const containing = candidates.filter((candidate) =>
    candidate.toLowerCase().split('_').includes(lower),
  );
  return containing.length === 1 ? containing[0] : undefined;
}
