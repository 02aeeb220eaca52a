/**
 * The Dense engine's `config` object (docs/dense.md). RoutIR's field names are kept
 * (`index_path`, `embedding_base_url`, `embedding_model_name`, `query_prompt`, `k_scale`).
 * Query embeddings come from an OpenAI-compatible API (`embedding_base_url`) or from a local
 * ONNX model (`encoder`, run by @irserve/onnx): exactly one of the two.
 */
import { httpCallFields, memoryBudgetField, parseEngineConfig, z } from 'irserve/plugin';
import { encoderConfigSchema } from './encoder-config.js';

/** Fields that only mean something for the embeddings API. */
const API_ONLY = ['embedding_model_name', 'api_key', 'dimensions'] as const;

export const denseConfigSchema = z
  .strictObject({
    index_path: z
      .string()
      .min(1)
      .describe(
        'Index directory: one written by irserve-build-index, or `index.faiss` + `index.ids`.',
      ),
    embedding_base_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('OpenAI-compatible API base, including the version: `http://gpu-1:8000/v1`.'),
    embedding_model_name: z
      .string()
      .min(1)
      .optional()
      .describe("The API's model name (with `embedding_base_url`)."),
    encoder: encoderConfigSchema
      .optional()
      .describe('A local ONNX model folder instead of an API (needs @irserve/onnx installed).'),
    api_key: z
      .string()
      .min(1)
      .optional()
      .describe('Bearer key of the embeddings API; default: the `api_key_env` variable.'),
    api_key_env: z
      .string()
      .min(1)
      .default('OPENAI_API_KEY')
      .describe('Environment variable holding the key when `api_key` is absent.'),
    query_prompt: z
      .string()
      .includes('{query}')
      .optional()
      .describe('Template of the text embedded for a query; `{query}` is replaced.'),
    passage_prompt: z
      .string()
      .includes('{passage}')
      .optional()
      .describe('Template of the text embedded for a passage by `score`; `{passage}` is replaced.'),
    k_scale: z
      .number()
      .finite()
      .min(1)
      .max(100)
      .default(2)
      .describe(
        'Search `ceil(limit * k_scale)` candidates (subset filtering eats some), then cut to `limit`.',
      ),
    nprobe: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('IVF indexes: inverted lists scanned per query.'),
    ef_search: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('HNSW indexes: candidate list size while searching.'),
    threads: z
      .number()
      .int()
      .min(0)
      .max(1024)
      .default(0)
      .describe('Threads an index search may use (Flat, HNSW); 0: all cores.'),
    memory_budget: memoryBudgetField(
      "Most memory the index's vectors (or codes) may keep resident (bytes, or a size such as `8GiB`): past it, Flat, SQ and IVF indexes read them from their files on demand, the blocks read kept in a cache of this size (the operating system's page cache does the rest), and an HNSW graph is memory-mapped instead of loaded. Default: no limit, the vectors are read into memory.",
    ).optional(),
    score_metric: z
      .enum(['ip', 'cosine'])
      .default('ip')
      .describe(
        "`score`: inner product of the embeddings (`ip`, RoutIR's choice) or their cosine.",
      ),
    normalize_query: z
      .boolean()
      .default(false)
      .describe(
        'L2-normalise query embeddings before searching (for APIs that return raw vectors).',
      ),
    dimensions: z
      .number()
      .int()
      .min(1)
      .max(65_536)
      .optional()
      .describe('Ask the API for vectors of this length (models with Matryoshka dimensions).'),
    id_to_subset_mapping: z
      .string()
      .min(1)
      .optional()
      .describe(
        'TSV (`id<TAB>label`) or JSON (`{"id": "label"}`) file: a subset label per document.',
      ),
    ...httpCallFields('embeddings call'),
  })
  .superRefine((config, issue) => {
    const api = config.embedding_base_url !== undefined;
    const local = config.encoder !== undefined;
    if (api === local)
      issue.addIssue({
        code: 'custom',
        path: [local ? 'encoder' : 'embedding_base_url'],
        message: local
          ? 'give embedding_base_url (an embeddings API) or encoder (a local model), not both'
          : 'give embedding_base_url (an embeddings API) or encoder (a local model folder)',
      });
    if (api && config.embedding_model_name === undefined)
      issue.addIssue({
        code: 'custom',
        path: ['embedding_model_name'],
        message: 'required with embedding_base_url',
      });
    if (local)
      for (const field of API_ONLY)
        if (config[field] !== undefined)
          issue.addIssue({
            code: 'custom',
            path: [field],
            message: 'only applies to embedding_base_url, not to encoder',
          });
    for (const field of ['query_prompt', 'passage_prompt'] as const)
      if (config[field] !== undefined && config.encoder?.[field] !== undefined)
        issue.addIssue({
          code: 'custom',
          path: [field],
          message: `given twice (here and in encoder.${field})`,
        });
  });

export type DenseConfig = z.output<typeof denseConfigSchema>;

/** Validates a service's `config`; throws ERR_CONFIG listing every problem. */
export function parseDenseConfig(input: unknown): DenseConfig {
  return parseEngineConfig(denseConfigSchema, input);
}

/**
 * The prompt templates in force: the encoder's, else the top level's, else the model folder's
 * prefixes (sentence-transformers prompts), else the bare text.
 *
 * @example
 * promptsOf(settings, { query: 'query: ' }).query // 'query: {query}' when the config sets none
 */
export function promptsOf(
  config: DenseConfig,
  prefixes: { query?: string; passage?: string } = {},
): { query: string; passage: string } {
  return {
    query: config.encoder?.query_prompt ?? config.query_prompt ?? `${prefixes.query ?? ''}{query}`,
    passage:
      config.encoder?.passage_prompt ??
      config.passage_prompt ??
      `${prefixes.passage ?? ''}{passage}`,
  };
}
