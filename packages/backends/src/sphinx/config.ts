/**
 * The `Manticore` engine's `config` object (docs/backends.md): an index of Manticore Search or
 * Sphinx (local, real-time or distributed) searched through SphinxQL, the MySQL protocol.
 */
import { parseEngineConfig, z } from 'irserve/plugin';
import { connectionFields, embeddingSchema } from '../common/config.js';

const name = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a plain index or attribute name');

export const manticoreConfigSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1').describe('searchd host.'),
    port: z
      .number()
      .int()
      .min(1)
      .max(65_535)
      .default(9306)
      .describe('SphinxQL port (`listen = 9306:mysql41`).'),
    user: z.string().min(1).optional().describe('User (Manticore with auth; Sphinx has none).'),
    password_env: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Environment variable holding the password (Manticore with auth; Sphinx has none).',
      ),
    index: name.describe('The index to search: a plain, real-time or distributed index.'),
    id_attribute: name
      .optional()
      .describe(
        "String attribute holding each document's irserve id; default: the numeric document id.",
      ),
    fields: z
      .array(name)
      .min(1)
      .optional()
      .describe('Full-text fields to match (`@(title,content)`); default: every field.'),
    /**
     * `bm25`: Okapi BM25 with `k1` and `b` (`bm25a`, needs `index_field_lengths = 1`); `native`:
     * the server's default ranker (integer weights); `knn`: Manticore's `KNN()` over `vector_attribute`.
     */
    mode: z
      .enum(['bm25', 'native', 'knn'])
      .default('bm25')
      .describe(
        "`bm25`: Okapi BM25 with `k1` and `b` (`bm25a`, needs `index_field_lengths = 1`); `native`: the server's default ranker; `knn`: Manticore's `KNN()` over `vector_attribute`.",
      ),
    operator: z
      .enum(['or', 'and'])
      .default('or')
      .describe(
        "`or`: documents matching any query word (BM25 retrieval, like Lucene); `and`: all words (Sphinx's default).",
      ),
    k1: z.number().min(0).max(10).default(1.2).describe('`bm25`: term-frequency saturation.'),
    b: z.number().min(0).max(1).default(0.75).describe('`bm25`: length normalisation.'),
    vector_attribute: name
      .optional()
      .describe('Float vector attribute for `knn` mode (Manticore 6.2 or later).'),
    embedding: embeddingSchema
      .optional()
      .describe(
        '`knn`: how the query is embedded: an embedder service of this config (`service`) or an OpenAI-compatible API (`base_url`, `model`).',
      ),
    max_query_time: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'Server-side query time limit in ms (`OPTION max_query_time`); default: `timeout`.',
      ),
    ...connectionFields,
  })
  .superRefine((config, ctx) => {
    if (config.mode !== 'knn') return;
    if (config.vector_attribute === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['vector_attribute'],
        message: 'knn mode needs vector_attribute',
      });
    if (config.embedding === undefined)
      ctx.addIssue({ code: 'custom', path: ['embedding'], message: 'knn mode needs an embedding' });
  });

export type ManticoreConfig = z.output<typeof manticoreConfigSchema>;

/** Validates a service's `config`; throws ERR_CONFIG listing every problem. */
export function parseManticoreConfig(input: unknown): ManticoreConfig {
  return parseEngineConfig(manticoreConfigSchema, input);
}
