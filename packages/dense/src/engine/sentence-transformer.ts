/**
 * `SentenceTransformerEngine`: RoutIR's name and config fields for a local sentence encoder,
 * mapped onto the Dense engine with `encoder` (the model runs in process on ONNX Runtime).
 * `embedding_model_name` is a model folder or a Hugging Face Hub id (docs/models.md).
 */
import {
  batchSizeField,
  onnxSessionFields,
  parseEngineConfig,
  z,
  type EngineInit,
  type ModelRequest,
} from 'irserve/plugin';
import type { ZodType } from 'zod';
import type { DenseConfig } from './config.js';
import { Dense } from './dense.js';

const { execution_providers, intra_op_threads } = onnxSessionFields;

export const sentenceTransformerConfigSchema = z.strictObject({
  index_path: z
    .string()
    .min(1)
    .describe("Index directory: irserve-build-index's, or `index.faiss` + `index.ids`."),
  embedding_model_name: z
    .string()
    .min(1)
    .describe(
      'The model folder (model.onnx + tokenizer.json), relative to the config file, or a Hugging Face Hub id (`org/name[@revision][/path]`) fetched into the Hugging Face cache (docs/models.md).',
    ),
  instruction: z
    .string()
    .includes('{query}')
    .optional()
    .describe("A `{query}` template applied to queries (RoutIR's `instruction`)."),
  passage_prompt: z
    .string()
    .includes('{passage}')
    .optional()
    .describe('A `{passage}` template applied to passages by `score`.'),
  normalize_embeddings: z
    .boolean()
    .optional()
    .describe(
      "L2-normalise embeddings. Default: the folder's (a sentence-transformers Normalize module).",
    ),
  batch_size: batchSizeField('Texts per `session.run`.'),
  k_scale: z
    .number()
    .finite()
    .min(1)
    .max(100)
    .default(2)
    .describe('Search `ceil(limit * k_scale)` candidates, then cut to `limit`.'),
  id_to_subset_mapping: z
    .string()
    .min(1)
    .optional()
    .describe('TSV or JSON file: a subset label per document.'),
  max_length: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe("Most tokens per text. Default: the folder's `max_seq_length`, else 512."),
  pooling: z
    .enum(['cls', 'mean', 'max', 'last_token', 'none'])
    .optional()
    .describe("Default: the folder's 1_Pooling config, else mean."),
  nprobe: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe('IVF indexes: lists probed per query (as `Dense`).'),
  ef_search: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe('HNSW indexes: search breadth (as `Dense`).'),
  score_metric: z
    .enum(['ip', 'cosine'])
    .default('ip')
    .describe('Similarity of the score role: inner product or cosine (as `Dense`).'),
  execution_providers,
  intra_op_threads,
});

export type SentenceTransformerConfig = z.output<typeof sentenceTransformerConfigSchema>;

/**
 * The Dense config a SentenceTransformerEngine config stands for.
 *
 * @example
 * denseConfigOf({ index_path: 'idx', embedding_model_name: 'models/minilm', batch_size: 32, k_scale: 2, score_metric: 'ip' })
 * // { index_path: 'idx', encoder: { model_path: 'models/minilm', batch_size: 32 }, k_scale: 2, ... }
 */
export function denseConfigOf(config: SentenceTransformerConfig): Record<string, unknown> {
  const optional = (key: string, value: unknown) => (value === undefined ? {} : { [key]: value });
  return {
    index_path: config.index_path,
    k_scale: config.k_scale,
    score_metric: config.score_metric,
    ...optional('id_to_subset_mapping', config.id_to_subset_mapping),
    ...optional('nprobe', config.nprobe),
    ...optional('ef_search', config.ef_search),
    encoder: {
      model_path: config.embedding_model_name,
      batch_size: config.batch_size,
      ...optional('query_prompt', config.instruction),
      ...optional('passage_prompt', config.passage_prompt),
      ...optional('normalize', config.normalize_embeddings),
      ...optional('max_length', config.max_length),
      ...optional('pooling', config.pooling),
      execution_providers: config.execution_providers,
      intra_op_threads: config.intra_op_threads,
    },
  } satisfies Partial<Record<keyof DenseConfig, unknown>>;
}

export class SentenceTransformerEngine extends Dense {
  static override readonly configSchema: ZodType = sentenceTransformerConfigSchema;

  constructor(init: EngineInit) {
    const config = parseEngineConfig(sentenceTransformerConfigSchema, init.config);
    super({ ...init, config: denseConfigOf(config) });
  }

  static override models(config: Record<string, unknown>): ModelRequest[] {
    const { embedding_model_name } = parseEngineConfig(sentenceTransformerConfigSchema, config);
    return [
      { reference: embedding_model_name, kind: 'onnx', field: 'config.embedding_model_name' },
    ];
  }
}
