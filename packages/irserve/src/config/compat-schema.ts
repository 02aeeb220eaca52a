import { z } from '../prebundled/zod.js';

/** A model name as clients send it (`text-embedding-3-small`, `BAAI/bge-m3`, `rerank-v3.5`). */
const modelName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\s]+$/, 'must not contain spaces');
const serviceName = z.string().min(1);

/** An embedding model: a service name, or an object choosing the query/passage prompts. */
export const embeddingModelSchema = z.union([
  serviceName,
  z.strictObject({
    service: serviceName.describe('A service whose engine defines `embedBatch`.'),
    kind: z
      .enum(['query', 'passage'])
      .default('passage')
      .describe('How texts are embedded when the request has no `input_type` (default `passage`).'),
    matryoshka: z
      .boolean()
      .default(false)
      .describe(
        'The model was trained for shorter prefixes of its vectors (Matryoshka): `dimensions` below the full size truncates and re-normalises. Otherwise only the full size is accepted.',
      ),
    description: z.string().optional().describe('What the model is for (GET /v1/models).'),
  }),
]);

/** A rerank model: a score service or a pipeline alias that reranks (`"ce >> ce-large%10"`). */
export const rerankModelSchema = z.union([
  serviceName,
  z.strictObject({
    service: serviceName.describe('A score service or a pipeline alias that reranks.'),
    description: z.string().optional().describe('What the model is for (GET /v1/models).'),
  }),
]);

/**
 * The `compat` section: which services the provider-compatible routes serve, under which model
 * names (docs/compat-apis.md). Every embed, sparse-embed and score service is also served under
 * its own name unless `expose_services` is false.
 */
export const compatConfigSchema = z.strictObject({
  embeddings: z
    .record(modelName, embeddingModelSchema)
    .default({})
    .describe('OpenAI `/v1/embeddings` and TEI `/embed` models: model name to embed service.'),
  rerank: z
    .record(modelName, rerankModelSchema)
    .default({})
    .describe(
      'Cohere / Jina `/v1/rerank`, `/v2/rerank` and TEI `/rerank` models: model name to score service or pipeline alias.',
    ),
  sparse_embeddings: z
    .record(modelName, embeddingModelSchema)
    .default({})
    .describe(
      'TEI `/embed_sparse` models: model name to a service whose engine defines `embedSparseBatch`.',
    ),
  expose_services: z
    .boolean()
    .default(true)
    .describe('Serve every embed / score service under its own service name too (default true).'),
  tei: z
    .strictObject({
      embed: modelName.optional().describe('The model TEI `/embed` serves.'),
      rerank: modelName.optional().describe('The model TEI `/rerank` serves.'),
      embed_sparse: modelName.optional().describe('The model TEI `/embed_sparse` serves.'),
    })
    .default({})
    .describe(
      'TEI routes carry no model name: the model each one serves (default: the only one there is).',
    ),
});

export type CompatConfig = z.output<typeof compatConfigSchema>;
