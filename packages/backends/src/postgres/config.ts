/**
 * The `Postgres` engine's `config` object (docs/backends.md): a table searched by full-text
 * (`ts_rank_cd`) or by pgvector distance, on PostgreSQL, Citus or a managed Postgres.
 */
import { parseEngineConfig, z } from 'irserve/plugin';
import { connectionFields, embeddingSchema } from '../common/config.js';

/** A column or table name: letters, digits, `_`, `$`; a table may carry its schema (`search.docs`). */
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_$]{0,62}$/, 'must be a plain SQL identifier (letters, digits, _)');
const tableName = z
  .string()
  .regex(
    /^([A-Za-z_][A-Za-z0-9_$]{0,62}\.)?[A-Za-z_][A-Za-z0-9_$]{0,62}$/,
    'must be a table name, optionally schema-qualified (search.docs)',
  );

export const postgresConfigSchema = z
  .strictObject({
    connection_string: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres://')
      .optional()
      .describe(
        '`postgres://user@host:5432/db?sslmode=require`; a password here is redacted in logs, but prefer `password_env`.',
      ),
    host: z
      .string()
      .min(1)
      .optional()
      .describe('Server host, when no `connection_string` is given.'),
    port: z.number().int().min(1).max(65_535).optional().describe('Server port (default 5432).'),
    database: z.string().min(1).optional().describe('Database name.'),
    user: z.string().min(1).optional().describe('Database user.'),
    password_env: z
      .string()
      .min(1)
      .default('PGPASSWORD')
      .describe("Environment variable holding the password (default `PGPASSWORD`, libpq's)."),
    ssl: z.boolean().optional().describe('Connect over TLS.'),
    table: tableName.describe('The table searched, optionally schema-qualified (`search.docs`).'),
    id_column: identifier.default('id').describe("Column holding each document's id."),
    mode: z
      .enum(['fulltext', 'vector'])
      .default('fulltext')
      .describe(
        '`fulltext`: `ts_rank_cd` over a tsvector; `vector`: pgvector distance over an embedding column.',
      ),
    text_column: identifier
      .default('text')
      .describe(
        'Text of each document: the collection view, the score role, and the tsvector when `tsvector_column` is absent.',
      ),
    title_column: identifier
      .optional()
      .describe('Column holding the title shown by the collection view.'),
    tsvector_column: identifier
      .optional()
      .describe(
        'A stored (and indexed) `tsvector` column; without it the text is parsed per query.',
      ),
    ts_config: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_.]*$/)
      .default('english')
      .describe('Text search configuration (`english`, `simple`, ...).'),
    query_parser: z
      .enum(['websearch', 'plain', 'phrase'])
      .default('websearch')
      .describe(
        'How the query becomes a tsquery: `websearch` (quotes, `or`, `-`), `plain` (all words), `phrase`.',
      ),
    normalization: z
      .number()
      .int()
      .min(0)
      .max(63)
      .default(0)
      .describe(
        '`ts_rank_cd` normalization bit mask (0: none; 1: divide by 1 + log(length); ...).',
      ),
    vector_column: identifier.default('embedding').describe('`vector`: the pgvector column.'),
    distance: z
      .enum(['inner_product', 'cosine', 'l2'])
      .default('inner_product')
      .describe(
        'pgvector operator: `inner_product` (`<#>`), `cosine` (`<=>`), `l2` (`<->`). Scores are similarities (higher is better).',
      ),
    embedding: embeddingSchema
      .optional()
      .describe(
        'The query embedder for `vector` mode: an embedder service of this app or an embeddings API.',
      ),
    ef_search: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe("pgvector's `hnsw.ef_search` for this query (HNSW indexes)."),
    probes: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe("pgvector's `ivfflat.probes` for this query (IVFFlat indexes)."),
    collection: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Serve the table as a collection of this name (content by id; rerank stages read it).',
      ),
    ...connectionFields,
  })
  .superRefine((config, ctx) => {
    if (config.mode === 'vector' && config.embedding === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['embedding'],
        message:
          'vector mode needs an embedding: {"service": "<embedder service>"} or {"base_url", "model"}',
      });
    if (
      config.connection_string === undefined &&
      config.host === undefined &&
      config.database === undefined
    )
      ctx.addIssue({
        code: 'custom',
        path: ['connection_string'],
        message: 'set connection_string, or host and database',
      });
  });

export type PostgresConfig = z.output<typeof postgresConfigSchema>;

/** Validates a service's `config`; throws ERR_CONFIG listing every problem. */
export function parsePostgresConfig(input: unknown): PostgresConfig {
  return parseEngineConfig(postgresConfigSchema as unknown as z.ZodObject, input) as PostgresConfig;
}
