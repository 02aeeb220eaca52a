/**
 * The PLAIDX engine's `config` object (docs/plaidx.md). RoutIR's field names are kept
 * (`index_path`, `checkpoint`, `inference_batch_size`, `passage_mapping`,
 * `mapping_containing_passage_id`, `id_to_subset_mapping`, `sliding_window_size`,
 * `sliding_window_stride`, `passage_batch_size`); the depth settings it hard-codes by k
 * can be set here and per request.
 */
import {
  batchSizeField,
  httpCallFields,
  memoryBudgetField,
  onnxSessionFields,
  parseEngineConfig,
  z,
} from 'irserve/plugin';

const { intra_op_threads } = onnxSessionFields;

const depthFields = {
  ncells: z
    .number()
    .int()
    .min(1)
    .max(1 << 20)
    .optional()
    .describe('Centroids probed per query token; default by k (RoutIR: 1 up to k 10, else 2).'),
  centroid_score_threshold: z
    .number()
    .finite()
    .min(-1e6)
    .max(1e6)
    .optional()
    .describe(
      'Stage 2 prunes centroids scoring below this for every query token; default by k (RoutIR: 0.5 up to k 10, 0.45 up to 100, else 0.4).',
    ),
  ndocs: z
    .number()
    .int()
    .min(1)
    .max(1 << 24)
    .optional()
    .describe(
      'Candidates kept by the centroid-only stages; default by k (RoutIR: 256 up to k 10, 1024 up to 100, else 2048).',
    ),
};

export const plaidxConfigSchema = z.strictObject({
  /** PLAID index directory (ColBERT `.pt` or `.npy` layout); without it the service only scores. */
  index_path: z
    .string()
    .min(1)
    .optional()
    .describe('Candidates kept after stage 2 (a quarter are scored exactly); default by k.'),
  checkpoint: z
    .string()
    .min(1)
    .optional()
    .describe(
      'An ONNX ColBERT export (folder with model.onnx, tokenizer.json, onnx_config.json), or a Hugging Face Hub id of one (`org/name[@revision][/path]`, docs/models.md).',
    ),
  intra_op_threads,
  encoder_url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe("Base URL of an HTTP token encoder speaking TEI's `POST /embed_all`."),
  api_key: z
    .string()
    .min(1)
    .optional()
    .describe('Bearer key of the HTTP encoder; default: the `api_key_env` variable.'),
  api_key_env: z
    .string()
    .min(1)
    .default('PLAIDX_ENCODER_API_KEY')
    .describe(
      "Environment variable holding the HTTP encoder's bearer key when `api_key` is not set.",
    ),
  query_prompt: z
    .string()
    .includes('{query}')
    .default('{query}')
    .describe('Text sent to the HTTP encoder for a query; `{query}` is replaced.'),
  passage_prompt: z
    .string()
    .includes('{passage}')
    .default('{passage}')
    .describe('Text sent to the HTTP encoder for a passage; `{passage}` is replaced.'),
  normalize: z
    .boolean()
    .default(true)
    .describe(
      "L2-normalise every token vector the encoder returns (ColBERT's own output already is).",
    ),
  inference_batch_size: batchSizeField('Queries per encoder call.'),
  passage_batch_size: z
    .number()
    .int()
    .min(1)
    .max(65_536)
    .default(512)
    .describe('Passages per encoder call when scoring.'),
  sliding_window_size: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(180)
    .describe('Tokens per scoring window over a long passage.'),
  sliding_window_stride: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(90)
    .describe('Tokens between the starts of two scoring windows over a long passage.'),
  passage_mapping: z
    .string()
    .min(1)
    .optional()
    .describe(
      'TSV `pid<TAB>passage_id`; default `passage_mapping.tsv` or `mapping.tsv` in the index.',
    ),
  mapping_containing_passage_id: z
    .boolean()
    .default(true)
    .describe('Passage ids end in `_<n>`: strip it to get the document id (MaxP over passages).'),
  id_to_subset_mapping: z
    .string()
    .min(1)
    .optional()
    .describe('TSV, JSON or pickled dict (`.pkl`) of document id to subset label.'),
  k_scale: z
    .number()
    .finite()
    .min(1)
    .max(100)
    .default(1.5)
    .describe(
      'Integer limits are multiplied by this to pick the depth and the passages kept (RoutIR: 1.5).',
    ),
  ...depthFields,
  max_query_tokens: z
    .number()
    .int()
    .min(1)
    .max(4096)
    .default(512)
    .describe('Longest query accepted, in token vectors (pre-encoded or from the encoder).'),
  verify_checksums: z
    .boolean()
    .default(true)
    .describe('Verify the sha256 manifest of indexes built by irserve when opening them.'),
  memory_budget: memoryBudgetField(
    "Most memory the index may keep resident (bytes, or a size such as `8GiB`): an index that needs more keeps its centroids, IVF and passage lengths in memory and reads the chunks' codes and residuals from their files, the pages read kept in a cache of what the budget leaves (the operating system's page cache does the rest). A chunk file past 4 GiB is always read this way. Default: no limit, the index is read into memory.",
  ).optional(),
  use_gpu: z
    .literal(false, { error: 'GPU inference is not supported by @irserve/plaidx; remove use_gpu' })
    .optional()
    .describe("RoutIR's GPU switch; only `false` is accepted (irserve encodes on the CPU)."),
  ...httpCallFields('encoder call'),
});

export type PlaidxConfig = z.output<typeof plaidxConfigSchema>;

/** Per-request depth overrides: the same three fields in the request body. */
export const requestDepthSchema = z.object(depthFields);

/** Validates a service's `config`; throws ERR_CONFIG listing every problem. */
export function parsePlaidxConfig(input: unknown): PlaidxConfig {
  return parseEngineConfig(plaidxConfigSchema, input);
}
