/**
 * The LSR engine's `config` object (docs/sparse.md). RoutIR's field names are kept
 * (`index_path`, `model_name`, `max_length`, `batch_size`, `max_terms`, `k_scale`,
 * `id_to_subset_mapping`); the query encoder is chosen by `encoder`.
 */
import {
  batchSizeField,
  httpCallFields,
  IrserveError,
  memoryBudgetField,
  parseEngineConfig,
  z,
  type ModelRequest,
} from 'irserve/plugin';

export const lsrConfigSchema = z.strictObject({
  index_path: z.string().min(1).describe('Index directory written by irserve-build-sparse-index.'),
  /**
   * `onnx`: in-process SPLADE (`model_name` is the model folder); `tei`: Text Embeddings
   * Inference's /embed_sparse at `encoder_url`; `none`: every request brings `query_vector`.
   * Default: `tei` when `encoder_url` is set, `onnx` when `model_name` is, else `none`.
   */
  encoder: z
    .enum(['onnx', 'tei', 'none'])
    .optional()
    .describe(
      'Query encoder: `onnx` (in-process SPLADE, `model_name` the folder), `tei` (/embed_sparse at `encoder_url`) or `none` (requests bring `query_vector`). Default: `tei` with `encoder_url`, `onnx` with `model_name`, else `none`.',
    ),
  model_name: z
    .string()
    .min(1)
    .optional()
    .describe(
      'ONNX: the model folder (model.onnx + tokenizer.json), or a Hugging Face Hub id (`org/name[@revision][/path]`, docs/models.md). With TEI the model is the one TEI serves.',
    ),
  max_length: z
    .number()
    .int()
    .min(2)
    .max(8192)
    .optional()
    .describe('ONNX: longest input in tokens (longer texts are truncated).'),
  batch_size: batchSizeField(
    'Texts per encoder call (a processor batch is split into calls of this size).',
  ),
  max_terms: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe('Keep the `max_terms` highest query weights of an encoded query (all when absent).'),
  k_scale: z
    .number()
    .finite()
    .min(1)
    .max(100)
    .default(2)
    .describe(
      'Search `ceil(limit * k_scale)` passages, then group them into documents (MaxP) and cut.',
    ),
  id_to_subset_mapping: z
    .string()
    .min(1)
    .optional()
    .describe(
      'TSV (`id<TAB>label`) or JSON (`{"id": "label"}`): a subset label per document (or passage).',
    ),
  encoder_url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe("TEI's base URL, e.g. `http://gpu-1:8080`."),
  vocab_path: z
    .string()
    .min(1)
    .optional()
    .describe("TEI: the model's tokenizer.json or vocab.txt, to turn token ids into tokens."),
  api_key: z
    .string()
    .min(1)
    .optional()
    .describe('TEI bearer key; default: the `api_key_env` variable.'),
  api_key_env: z
    .string()
    .min(1)
    .default('TEI_API_KEY')
    .describe('Environment variable holding the TEI bearer key when `api_key` is not set.'),
  ...httpCallFields('encoder call'),
  /**
   * How to find the top k; all return the same passages and scores (docs/sparse.md):
   * `exhaustive` (every posting of every query term), `bmp` (block-max pruning over blocks of
   * 4 passages, bounds summed with SIMD; 5x-12x exhaustive at top 10 on the bench's million
   * passages, slower at top 1000; derives its bounds at start-up, about half a GB a million
   * passages), `auto` (`bmp` up to top 200, or top passages/1000 when more; `exhaustive` above), `max-score` (shortest
   * lists first; stops once the unread terms cannot lift a passage to the k-th score),
   * `block-max` (BMP over the index's blocks of 32 passages; for indexes built with
   * `--reorder cluster`), `impact-ordered` (heaviest postings first; needs an index built with
   * `--impact_ordered`, else a start-up error).
   */
  search: z
    .enum(['auto', 'exhaustive', 'max-score', 'block-max', 'bmp', 'impact-ordered'])
    .default('exhaustive')
    .describe(
      'How the top k is found; every strategy returns the same passages and scores. `exhaustive` (default), `bmp` (block-max pruning over blocks of 4 passages, several times faster at small k), `auto` (`bmp` up to top 200, or passages/1000 when more; else exhaustive), `max-score`, `block-max`, `impact-ordered` (needs an index built with `--impact_ordered`).',
    ),
  threads: z
    .number()
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "Threads that sum `bmp`'s (and `auto`'s) block bounds of each query, the search thread included, on indexes of 2 M passages or more (below, one thread is faster). Default: the machine's cores, at most 4.",
    ),
  check_vocabulary: z
    .boolean()
    .default(true)
    .describe("Refuse to start when index tokens are missing from the encoder's vocabulary."),
  /**
   * On a million passages, checking every file's CRC-32 costs about a second and deriving the
   * `bmp` bounds two to four: `background` lets the service answer meanwhile.
   */
  memory_budget: memoryBudgetField(
    "Most memory the index may keep resident (bytes, or a size such as `8GiB`). When the whole index (its posting lists, forward index and the strategy's bounds) needs more, it is served from its files: the head (list offsets, document ids, terms) in memory, the rest read through page caches of the rest of the budget, every page checked against its CRC-32: `bmp` and `auto` prune with block bounds derived from the files when they fit the budget, the other strategies answer exhaustively (same results either way). Default: no limit, the index is read into memory.",
  ).optional(),
  prepare: z
    .enum(['background', 'start'])
    .default('background')
    .describe(
      "When the index files' checksums are checked and the `bmp`/`auto` block bounds derived. `background` (default): the service answers at once, `bmp` and `auto` search exhaustively (same results) until their bounds are ready, and a checksum mismatch found later takes the service out of use (500 ERR_ENGINE naming the file). `start`: before the service answers; a damaged index stops the start.",
    ),
});

export type LsrConfig = z.output<typeof lsrConfigSchema> & { encoder: 'onnx' | 'tei' | 'none' };

function defaultEncoder(config: z.output<typeof lsrConfigSchema>): LsrConfig['encoder'] {
  if (config.encoder) return config.encoder;
  if (config.encoder_url) return 'tei';
  return config.model_name ? 'onnx' : 'none';
}

/** Fields that only make sense with some encoder, and what each encoder requires. */
function crossFieldProblems(config: LsrConfig): string[] {
  const problems: string[] = [];
  const need = (field: keyof LsrConfig, why: string) => {
    if (config[field] === undefined) problems.push(`config.${field}: required ${why}`);
  };
  const refuse = (field: keyof LsrConfig, why: string) => {
    if (config[field] !== undefined) problems.push(`config.${field}: ${why}`);
  };
  if (config.encoder === 'tei') {
    need('encoder_url', 'with encoder "tei"');
    need('vocab_path', 'with encoder "tei" (the model\'s tokenizer.json or vocab.txt)');
    refuse('max_length', 'TEI truncates at its own --max-input-length; remove max_length');
    refuse('model_name', 'with encoder "tei" the model is the one TEI serves; remove model_name');
  } else refuse('encoder_url', `only used with encoder "tei" (encoder is "${config.encoder}")`);
  if (config.encoder === 'onnx') need('model_name', 'with encoder "onnx" (the model folder)');
  if (config.encoder === 'none') {
    refuse('max_length', 'no encoder: requests bring query_vector');
    refuse('max_terms', 'no encoder: requests bring query_vector');
  }
  return problems;
}

/** Validates a service's `config`; throws ERR_CONFIG listing every problem. */
export function parseLsrConfig(input: unknown): LsrConfig {
  const parsed = parseEngineConfig(lsrConfigSchema, input);
  const config = { ...parsed, encoder: defaultEncoder(parsed) };
  const problems = crossFieldProblems(config);
  if (problems.length > 0)
    throw new IrserveError('ERR_CONFIG', problems.join('; '), { details: { problems } });
  return config;
}

/**
 * The in-process query encoder's model (`encoder: "onnx"`), if any.
 *
 * @example lsrModels(parseLsrConfig({ index_path: 'i', model_name: 'naver/splade-v3' })) // one request
 */
export function lsrModels(config: LsrConfig): ModelRequest[] {
  return config.encoder === 'onnx'
    ? [{ reference: config.model_name!, kind: 'onnx', field: 'config.model_name' }]
    : [];
}
