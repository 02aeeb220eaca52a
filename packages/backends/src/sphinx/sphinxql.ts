/**
 * The SphinxQL the Manticore engine sends. Index and attribute names come from the validated
 * config; the query text is escaped for the full-text syntax (operators become plain words)
 * and then bound as a string value by the MySQL driver.
 */
import type { ManticoreConfig } from './config.js';

export interface Statement {
  sql: string;
  values: unknown[];
}

/** Characters with a meaning in the extended query syntax. */
const OPERATORS = /[\\()|\-!@~"&/^$=<>*?[\]{}:']/g;

/**
 * The text matched as words: every query-syntax operator escaped.
 *
 * @example
 * escapeMatch('jet -engine "x') // 'jet \\-engine \\"x'
 */
export function escapeMatch(text: string): string {
  return text.replace(OPERATORS, '\\$&');
}

function idColumn(config: ManticoreConfig): string {
  return config.id_attribute ?? 'id';
}

function subsetFilter(
  config: ManticoreConfig,
  subset: string | undefined,
  values: unknown[],
): string {
  if (subset === undefined || config.subset_field === undefined) return '';
  values.push(subset);
  return ` AND ${config.subset_field} = ?`;
}

function options(config: ManticoreConfig): string {
  const time = config.max_query_time ?? Math.round(config.timeout * 1000);
  const ranker =
    config.mode === 'bm25' ? `ranker=expr('1000000*bm25a(${config.k1},${config.b})'), ` : '';
  return ` OPTION ${ranker}max_query_time=${time}`;
}

/**
 * The query's words: whitespace-separated pieces holding a letter or a digit (a lone `--` or
 * `;` is no word, and would leave an empty operand in an OR).
 */
export function matchWords(query: string): string[] {
  return query.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
}

/** Full-text search: the best `limit` documents by the ranker's weight. */
export function matchSearch(
  config: ManticoreConfig,
  request: { query: string; limit: number; subset?: string | undefined },
): Statement {
  const fields = config.fields === undefined ? '' : `@(${config.fields.join(',')}) `;
  const words = matchWords(request.query).map(escapeMatch);
  const joined = words.join(config.operator === 'or' ? ' | ' : ' ');
  const values: unknown[] = [
    fields + (config.operator === 'or' && words.length > 1 ? `(${joined})` : joined),
  ];
  const subset = subsetFilter(config, request.subset, values);
  values.push(request.limit);
  return {
    sql:
      `SELECT ${idColumn(config)} AS docid, WEIGHT() AS score FROM ${config.index} ` +
      `WHERE MATCH(?)${subset} ORDER BY score DESC LIMIT ?${options(config)}`,
    values,
  };
}

/** Manticore KNN: the `k` nearest documents to the vector (distances become negated scores). */
export function knnSearch(
  config: ManticoreConfig,
  request: { vector: Float32Array; k: number; subset?: string | undefined },
): Statement {
  const vector = Array.from(request.vector, (x) => (Number.isFinite(x) ? x : 0)).join(',');
  const values: unknown[] = [];
  const subset = subsetFilter(config, request.subset, values);
  values.push(request.k);
  return {
    sql:
      `SELECT ${idColumn(config)} AS docid, -KNN_DIST() AS score FROM ${config.index} ` +
      `WHERE KNN(${config.vector_attribute}, ${request.k}, (${vector}))${subset} LIMIT ?`,
    values,
  };
}

/** Weights of `bm25` mode come scaled by a million (the ranker returns integers). */
export function weightScale(config: ManticoreConfig): number {
  return config.mode === 'bm25' ? 1e6 : 1;
}
