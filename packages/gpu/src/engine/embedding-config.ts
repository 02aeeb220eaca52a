/**
 * The `GgufEmbedding` config (docs/gpu.md): Dense's search fields (RoutIR's Qwen3 names:
 * `index_path`, `query_prompt`, `k_scale`, ...) plus the GGUF model and device fields.
 */
import { denseConfigSchema, type DenseConfig } from '@irserve/dense';
import { parseEngineConfig, z } from 'irserve/plugin';
import { checkModelPath, ggufModelFields } from './model-config.js';

const dense = denseConfigSchema.shape;

export const ggufEmbeddingConfigSchema = z
  .strictObject({
    index_path: dense.index_path,
    query_prompt: dense.query_prompt,
    passage_prompt: dense.passage_prompt,
    k_scale: dense.k_scale,
    nprobe: dense.nprobe,
    ef_search: dense.ef_search,
    threads: dense.threads,
    score_metric: dense.score_metric,
    id_to_subset_mapping: dense.id_to_subset_mapping,
    normalize: z
      .boolean()
      .default(true)
      .describe('L2-normalise every embedding (queries and passages), as RoutIR does for Qwen3.'),
    ...ggufModelFields,
  })
  .superRefine(checkModelPath);

export type GgufEmbeddingConfig = z.output<typeof ggufEmbeddingConfigSchema>;

/**
 * Validates a service's `config`; throws ERR_CONFIG listing every problem.
 *
 * @example
 * parseGgufEmbeddingConfig({ index_path: 'index', model_path: 'qwen3-embedding.gguf' }).device // 'auto'
 */
export function parseGgufEmbeddingConfig(input: unknown): GgufEmbeddingConfig {
  return parseEngineConfig(ggufEmbeddingConfigSchema, input);
}

/** The Dense settings of a GgufEmbedding config (the API fields are never used). */
export function denseSettingsOf(config: GgufEmbeddingConfig): DenseConfig {
  return {
    index_path: config.index_path,
    query_prompt: config.query_prompt,
    passage_prompt: config.passage_prompt,
    k_scale: config.k_scale,
    nprobe: config.nprobe,
    ef_search: config.ef_search,
    threads: config.threads,
    score_metric: config.score_metric,
    id_to_subset_mapping: config.id_to_subset_mapping,
    normalize_query: false,
    api_key_env: 'OPENAI_API_KEY',
    timeout: 60,
    retries: 3,
  };
}
