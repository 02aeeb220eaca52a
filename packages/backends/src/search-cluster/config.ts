/**
 * The `OpenSearch` and `Elasticsearch` engines' `config` object (docs/backends.md): an index
 * searched by BM25 (`match` / `multi_match`) or by the `knn` query, through the official client.
 */
import { parseEngineConfig, z } from 'irserve/plugin';
import { connectionFields, embeddingSchema } from '../common/config.js';

/** A field name, optionally boosted (`title^2`). */
const field = z
  .string()
  .regex(
    /^[A-Za-z0-9_@.-]+(\^\d+(\.\d+)?)?$/,
    'must be a field name, optionally boosted (title^2)',
  );
const plainField = z.string().regex(/^[A-Za-z0-9_@.-]+$/, 'must be a field name');

export const clusterConfigSchema = z
  .strictObject({
    node: z
      .union([z.url({ protocol: /^https?$/ }), z.array(z.url({ protocol: /^https?$/ })).min(1)])
      .describe(
        'One node or several (`https://es-1:9200`); the client balances over them and skips dead ones.',
      ),
    index: z
      .string()
      .regex(/^[^\s"\\/?#]+$/, 'must be an index name, alias or pattern')
      .describe('Index, alias, or comma-separated list / pattern of them.'),
    username: z
      .string()
      .min(1)
      .optional()
      .describe('User for basic authentication (the password in `password_env`).'),
    password_env: z
      .string()
      .min(1)
      .optional()
      .describe('Environment variable holding the password for `username`.'),
    api_key_env: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Environment variable holding an API key (Elasticsearch `ApiKey`, sent instead of a password).',
      ),
    tls_insecure: z
      .boolean()
      .default(false)
      .describe('Accept a self-signed certificate (test clusters only).'),
    mode: z
      .enum(['bm25', 'knn'])
      .default('bm25')
      .describe(
        '`bm25`: `match` / `multi_match` over `fields`; `knn`: a `knn` query over `vector_field` with the query embedded by `embedding`.',
      ),
    fields: z
      .array(field)
      .min(1)
      .default(['text'])
      .describe(
        '`bm25`: fields matched; one field gives a `match` query, several a `multi_match` (`best_fields`).',
      ),
    operator: z
      .enum(['or', 'and'])
      .default('or')
      .describe('`or`: any query word matches (ranking by BM25); `and`: every word must match.'),
    vector_field: plainField
      .default('embedding')
      .describe('`knn`: the vector field (`knn_vector` / `dense_vector`).'),
    num_candidates: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Elasticsearch `num_candidates` per shard; default: `k * 2`.'),
    similarity: z
      .enum(['cosine', 'inner_product', 'l2'])
      .default('cosine')
      .describe(
        'The similarity the vector field was mapped with, for the score role (same scores as search).',
      ),
    embedding: embeddingSchema
      .optional()
      .describe(
        '`knn`: how the query is embedded: an embedder service of this config (`service`) or an OpenAI-compatible API (`base_url`, `model`).',
      ),
    id_field: plainField
      .optional()
      .describe("Source field holding the irserve document id; default: the index's `_id`."),
    collection: z
      .string()
      .min(1)
      .optional()
      .describe('Serve the index as a collection of this name (content by id).'),
    text_field: plainField
      .optional()
      .describe("Source field of the collection view's text; default: the first of `fields`."),
    title_field: plainField
      .optional()
      .describe('Field holding the title shown by the collection view over this index.'),
    ...connectionFields,
  })
  .superRefine((config, ctx) => {
    if (config.mode === 'knn' && config.embedding === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['embedding'],
        message:
          'knn mode needs an embedding: {"service": "<embedder service>"} or {"base_url", "model"}',
      });
    if (config.password_env !== undefined && config.username === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['username'],
        message: 'password_env needs a username',
      });
  });

export type ClusterConfig = z.output<typeof clusterConfigSchema>;

/** Validates a service's `config`; throws ERR_CONFIG listing every problem. */
export function parseClusterConfig(input: unknown): ClusterConfig {
  return parseEngineConfig(clusterConfigSchema, input);
}
