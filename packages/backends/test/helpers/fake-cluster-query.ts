/**
 * Query evaluation of the fake cluster: `match`, `multi_match` (best_fields), `bool` with
 * `must` and `term` filters, `ids`, and the two `knn` shapes. Anything else throws, naming what.
 */
import type { Flavor } from './fake-cluster.js';

export interface Doc {
  id: string;
  source: Record<string, unknown>;
}

type Body = Record<string, unknown>;

const K1 = 1.2;
const B = 0.75;

function words(text: unknown): string[] {
  return (typeof text === 'string' ? text : '').toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Lucene's BM25 (idf = ln(1 + (N - n + 0.5) / (n + 0.5)), no (k1 + 1) factor) of one field. */
function bm25(docs: Doc[], field: string, query: string, operator: string): Map<string, number> {
  const terms = [...new Set(words(query))];
  const lengths = docs.map((doc) => words(doc.source[field]).length);
  const avg =
    lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.filter((_, i) => lengths[i]! > 0).length);
  const scores = new Map<string, number>();
  docs.forEach((doc, i) => {
    const tokens = words(doc.source[field]);
    let score = 0;
    let matched = 0;
    for (const term of terms) {
      const tf = tokens.filter((t) => t === term).length;
      if (tf === 0) continue;
      matched++;
      const n = docs.filter((d) => words(d.source[field]).includes(term)).length;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += (idf * tf) / (tf + K1 * (1 - B + (B * lengths[i]!) / avg));
    }
    if (matched > 0 && (operator !== 'and' || matched === terms.length)) scores.set(doc.id, score);
  });
  return scores;
}

function cosineScore(a: number[], b: unknown): number {
  const v = b as number[];
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * v[i]!;
    na += x * x;
    nb += v[i]! * v[i]!;
  });
  return (1 + (na && nb ? dot / Math.sqrt(na * nb) : 0)) / 2;
}

function only(object: unknown, allowed: string[], what: string): Body {
  if (typeof object !== 'object' || object === null) throw new Error(`[${what}] must be an object`);
  for (const key of Object.keys(object))
    if (!allowed.includes(key)) throw new Error(`[${what}] unknown field [${key}]`);
  return object as Body;
}

function filterDocs(docs: Doc[], filter: unknown): Doc[] {
  if (filter === undefined) return docs;
  const term = only(filter, ['term'], 'filter').term as Body;
  const [[field, value]] = Object.entries(term) as [[string, unknown]];
  return docs.filter((doc) => doc.source[field] === value);
}

function knn(flavor: Flavor, docs: Doc[], spec: Body): Map<string, number> {
  let field: string;
  let vector: number[];
  let k: number;
  let filter: unknown;
  if (flavor === 'opensearch') {
    const entries = Object.entries(spec);
    if (entries.length !== 1) throw new Error('[knn] expects exactly one field');
    field = entries[0]![0];
    const inner = only(entries[0]![1], ['vector', 'k', 'filter'], 'knn.field');
    ({ vector, k, filter } = inner as { vector: number[]; k: number; filter?: unknown });
  } else {
    const inner = only(spec, ['field', 'query_vector', 'k', 'num_candidates', 'filter'], 'knn');
    if (typeof inner.num_candidates !== 'number' || inner.num_candidates < (inner.k as number))
      throw new Error('[num_candidates] must be >= k');
    ({
      field,
      query_vector: vector,
      k,
      filter,
    } = inner as { field: string; query_vector: number[]; k: number; filter?: unknown });
  }
  if (!Array.isArray(vector) || typeof k !== 'number')
    throw new Error('[knn] needs a vector and k');
  const ranked = filterDocs(docs, filter)
    .filter((doc) => Array.isArray(doc.source[field]))
    .map((doc) => [doc.id, cosineScore(vector, doc.source[field])] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, k);
  return new Map(ranked);
}

function query(flavor: Flavor, docs: Doc[], spec: Body): Map<string, number> {
  const [kind, value] = Object.entries(spec)[0] ?? [];
  if (kind === 'match') {
    const [[field, options]] = Object.entries(value as Body) as [[string, Body]];
    const { query: text, operator } = only(options, ['query', 'operator'], 'match') as {
      query: string;
      operator?: string;
    };
    return bm25(docs, field, text, operator ?? 'or');
  }
  if (kind === 'multi_match') {
    const m = only(value, ['query', 'fields', 'type', 'operator'], 'multi_match') as {
      query: string;
      fields: string[];
      operator?: string;
    };
    const best = new Map<string, number>();
    for (const f of m.fields) {
      const [field, boost] = f.split('^');
      for (const [id, score] of bm25(docs, field!, m.query, m.operator ?? 'or'))
        best.set(id, Math.max(best.get(id) ?? 0, score * Number(boost ?? 1)));
    }
    return best;
  }
  if (kind === 'bool') {
    const bool = only(value, ['must', 'filter'], 'bool');
    const kept = filterDocs(docs, bool.filter);
    return query(flavor, kept, bool.must as Body);
  }
  if (kind === 'term') return new Map(filterDocs(docs, spec).map((doc) => [doc.id, 1]));
  if (kind === 'knn') return knn(flavor, docs, value as Body);
  throw new Error(`unknown query [${String(kind)}]`);
}

/** A `_search` answer for `body` over `docs`. */
export function evaluate(flavor: Flavor, index: Map<string, Doc>, body: Body): Body {
  only(body, ['size', 'query', '_source', 'track_total_hits'], 'search');
  const docs = [...index.values()];
  const scores = query(flavor, docs, (body.query ?? { match_all: {} }) as Body);
  const size = typeof body.size === 'number' ? body.size : 10;
  const hits = [...scores]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, size)
    .map(([id, score]) => {
      const source = index.get(id)!.source;
      const wanted = body._source;
      const shown =
        wanted === false
          ? undefined
          : Array.isArray(wanted)
            ? Object.fromEntries(wanted.map((f: string) => [f, source[f]]))
            : source;
      return { _index: 'i', _id: id, _score: score, ...(shown ? { _source: shown } : {}) };
    });
  return { took: 1, timed_out: false, hits: { max_score: hits[0]?._score ?? null, hits } };
}
