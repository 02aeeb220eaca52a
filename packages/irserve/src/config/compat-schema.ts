import { z } from 'zod';

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
    /** A service whose engine defines `embedBatch`. */
    service: serviceName,
    /** How texts are embedded when the request has no `input_type` (default `passage`). */
    kind: z.enum(['query', 'passage']).default('passage'),
    /**
     * The model was trained for shorter prefixes of its vectors (Matryoshka): `dimensions`
     * below the full size truncates and re-normalises. Otherwise only the full size is accepted.
     */
    matryoshka: z.boolean().default(false),
    description: z.string().optional(),
  }),
]);

/** A rerank model: a score service or a pipeline alias that reranks (`"ce >> ce-large%10"`). */
export const rerankModelSchema = z.union([
  serviceName,
  z.strictObject({ service: serviceName, description: z.string().optional() }),
]);

/**
 * The `compat` section: which services the provider-compatible routes serve, under which model
 * names (docs/compat-apis.md). Every embed, sparse-embed and score service is also served under
 * its own name unless `expose_services` is false.
 */
export const compatConfigSchema = z.strictObject({
  /** OpenAI `/v1/embeddings` and TEI `/embed` models: model name to embed service. */
  embeddings: z.record(modelName, embeddingModelSchema).default({}),
  /** Cohere / Jina `/v1/rerank`, `/v2/rerank` and TEI `/rerank` models: model name to score service or pipeline alias. */
  rerank: z.record(modelName, rerankModelSchema).default({}),
  /** TEI `/embed_sparse` models: model name to a service whose engine defines `embedSparseBatch`. */
  sparse_embeddings: z.record(modelName, embeddingModelSchema).default({}),
  /** Serve every embed / score service under its own service name too (default true). */
  expose_services: z.boolean().default(true),
  /** TEI routes carry no model name: the model each one serves (default: the only one there is). */
  tei: z
    .strictObject({
      embed: modelName.optional(),
      rerank: modelName.optional(),
      embed_sparse: modelName.optional(),
    })
    .default({}),
});

export type CompatConfig = z.output<typeof compatConfigSchema>;
