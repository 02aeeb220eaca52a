/**
 * The SQL the Postgres engine sends. Identifiers come from the validated config (plain names,
 * double-quoted here); every value from a request travels as a bind parameter, never in the text.
 */
import type { PostgresConfig } from './config.js';

/** `"search"."docs"` from `search.docs`. */
export function quoteIdentifier(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');
}

const TSQUERY = {
  websearch: 'websearch_to_tsquery',
  plain: 'plainto_tsquery',
  phrase: 'phraseto_tsquery',
} as const;

/** pgvector operator and the similarity (higher is better) it gives for each distance. */
const VECTOR = {
  inner_product: { operator: '<#>', similarity: (d: string) => `(${d}) * -1` },
  cosine: { operator: '<=>', similarity: (d: string) => `1 - (${d})` },
  l2: { operator: '<->', similarity: (d: string) => `-(${d})` },
} as const;

export interface Statement {
  text: string;
  values: unknown[];
}

/** The tsvector of a row: the stored column, or the text parsed with the configuration. */
function documentVector(config: PostgresConfig): string {
  return config.tsvector_column !== undefined
    ? quoteIdentifier(config.tsvector_column)
    : `to_tsvector($1::regconfig, ${quoteIdentifier(config.text_column)})`;
}

function subsetClause(
  config: PostgresConfig,
  subset: string | undefined,
  values: unknown[],
): string {
  if (subset === undefined || config.subset_field === undefined) return '';
  values.push(subset);
  return ` AND ${quoteIdentifier(config.subset_field)} = $${values.length}`;
}

/**
 * Full-text search: the best `limit` rows by `ts_rank_cd`, ties broken by id.
 *
 * @example
 * fulltextSearch(config, { query: 'cat food', limit: 10 }).text
 * // SELECT "id"::text AS id, ts_rank_cd(...) AS score FROM "docs" ... LIMIT $3
 */
export function fulltextSearch(
  config: PostgresConfig,
  request: { query: string; limit: number; subset?: string | undefined },
): Statement {
  const values: unknown[] = [config.ts_config, request.query, request.limit, config.normalization];
  const id = quoteIdentifier(config.id_column);
  const vector = documentVector(config);
  const subset = subsetClause(config, request.subset, values);
  return {
    text:
      `SELECT ${id}::text AS id, ts_rank_cd(${vector}, q, $4::int) AS score ` +
      `FROM ${quoteIdentifier(config.table)}, ${TSQUERY[config.query_parser]}($1::regconfig, $2::text) q ` +
      `WHERE ${vector} @@ q${subset} ORDER BY score DESC, ${id} LIMIT $3::int`,
    values,
  };
}

/** pgvector kNN: the `k` nearest rows to the query vector, scored as similarities. */
export function vectorSearch(
  config: PostgresConfig,
  request: { vector: Float32Array; k: number; subset?: string | undefined },
): Statement {
  const values: unknown[] = [vectorLiteral(request.vector), request.k];
  const { operator, similarity } = VECTOR[config.distance];
  const distance = `${quoteIdentifier(config.vector_column)} ${operator} $1::vector`;
  const subset = subsetClause(config, request.subset, values);
  return {
    text:
      `SELECT ${quoteIdentifier(config.id_column)}::text AS id, ${similarity(distance)} AS score ` +
      `FROM ${quoteIdentifier(config.table)} WHERE ${quoteIdentifier(config.vector_column)} IS NOT NULL${subset} ` +
      `ORDER BY ${distance} LIMIT $2::int`,
    values,
  };
}

/** `ts_rank_cd` of each given passage against the query, in passage order. */
export function fulltextScore(
  config: PostgresConfig,
  request: { query: string; passages: string[] },
): Statement {
  return {
    text:
      `SELECT ts_rank_cd(to_tsvector($1::regconfig, p), ${TSQUERY[config.query_parser]}($1::regconfig, $2::text), $4::int) AS score ` +
      `FROM unnest($3::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n`,
    values: [config.ts_config, request.query, request.passages, config.normalization],
  };
}

/** One row's text (and title) by id, for the collection view. */
export function documentById(config: PostgresConfig, id: string): Statement {
  const title =
    config.title_column === undefined
      ? ''
      : `, ${quoteIdentifier(config.title_column)}::text AS title`;
  return {
    text:
      `SELECT ${quoteIdentifier(config.text_column)}::text AS text${title} ` +
      `FROM ${quoteIdentifier(config.table)} WHERE ${quoteIdentifier(config.id_column)}::text = $1 LIMIT 1`,
    values: [id],
  };
}

/** Checks at connection time that the table and the columns the mode reads exist. */
export function probe(config: PostgresConfig): Statement {
  const columns = [config.id_column, config.text_column];
  if (config.mode === 'vector') columns.push(config.vector_column);
  if (config.tsvector_column !== undefined) columns.push(config.tsvector_column);
  if (config.subset_field !== undefined) columns.push(config.subset_field);
  return {
    text: `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${quoteIdentifier(config.table)} LIMIT 0`,
    values: [],
  };
}

/** pgvector's text form: `[0.1,0.2]`. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}
