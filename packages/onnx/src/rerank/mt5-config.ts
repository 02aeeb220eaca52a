/**
 * The `MT5Reranker` config (docs/models.md): RoutIR's field names (`model_name_or_path`,
 * `q_max_length`, `d_max_length`, `batch_size`, `use_gpu`) and defaults, plus the two answer
 * tokens RoutIR's code takes but its config never passes on, and the session options.
 */
import { batchSizeField, parseEngineConfig, z, type ModelRequest } from 'irserve/plugin';
import type { AcquireSeq2SeqOptions } from '../runtime/session-pool.js';
import { sessionOptionsSchema } from '../runtime/session-options.js';

/** monoT5's input (Nogueira et al.); RoutIR and PyGaggle use it for every checkpoint. */
export const MONOT5_PROMPT = 'Query: {query} Document: {document} Relevant:';

/** RoutIR's Reranker keys that turn a reranker into a search engine over an upstream one. */
const ROUTIR_SEARCH_KEYS = [
  'upstream_service',
  'text_service',
  'rerank_topk_max',
  'rerank_multiplier',
] as const;

const length = (what: string, fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(fallback)
    .describe(`Most tokens of the ${what}; longer ones are cut, never rejected.`);

const graphFile = (role: string, fallback: string) =>
  z
    .string()
    .min(1)
    .optional()
    .describe(`The ${role} graph relative to the model folder (default: ${fallback}).`);

export const mt5ConfigSchema = z
  .strictObject({
    model_name_or_path: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The exported model folder, relative to the config file, or a Hugging Face Hub id (`org/name[@revision][/path]`) fetched into the Hugging Face cache (docs/models.md) (RoutIR\'s name). The hub id, or the folder\'s last path part, also picks the answer tokens of a known checkpoint, e.g. "castorini/monot5-base-msmarco".',
      ),
    model_path: z.string().min(1).optional().describe("irserve's name for `model_name_or_path`."),
    token_false: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The token that answers "not relevant", e.g. "▁false" (monoT5) or "▁no" (mT5 mMARCO). Default: by checkpoint, as RoutIR.',
      ),
    token_true: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The token that answers "relevant", e.g. "▁true" or "▁yes"; given with token_false.',
      ),
    prompt: z
      .string()
      .default(MONOT5_PROMPT)
      .describe(
        'The encoder input: `{query}` and `{document}` (or `{passage}`) exactly once each; only those two are cut.',
      ),
    q_max_length: length('query', 180),
    d_max_length: length('passage', 512),
    batch_size: batchSizeField('Pairs per encoder and decoder run; larger batches are split.'),
    use_gpu: z
      .boolean()
      .optional()
      .describe(
        'RoutIR\'s switch: true is `device: "auto"` (a GPU when its provider is installed, else the CPU), false is `device: "cpu"`.',
      ),
    encoder_file: graphFile('encoder', 'encoder_model.onnx, else onnx/encoder_model.onnx'),
    decoder_file: graphFile(
      'decoder',
      'decoder_model.onnx, then decoder_model_merged.onnx, then the same under onnx/',
    ),
    ...sessionOptionsSchema.shape,
    ...Object.fromEntries(
      ROUTIR_SEARCH_KEYS.map((key) => [
        key,
        z
          .unknown()
          .optional()
          .describe(
            "RoutIR's Reranker key, refused: in irserve a reranker does not search; write a pipeline such as `bm25%100 >> mt5`.",
          ),
      ]),
    ),
  })
  .superRefine((config, issue) => {
    for (const key of ROUTIR_SEARCH_KEYS)
      if ((config as Record<string, unknown>)[key] !== undefined)
        issue.addIssue({
          code: 'custom',
          path: [key],
          message:
            'is RoutIR\'s way to make a reranker search (upstream search, then rerank); irserve composes that as a pipeline instead, e.g. "bm25%100 >> mt5" with the collection in the request (docs/pipelines.md)',
        });
    if ((config.model_path === undefined) === (config.model_name_or_path === undefined))
      issue.addIssue({
        code: 'custom',
        path: ['model_name_or_path'],
        message: 'give the model folder as model_name_or_path (or its alias model_path), once',
      });
    if ((config.token_false === undefined) !== (config.token_true === undefined))
      issue.addIssue({
        code: 'custom',
        path: [config.token_false === undefined ? 'token_false' : 'token_true'],
        message: 'give token_false and token_true together',
      });
    if (config.use_gpu !== undefined && config.device !== undefined)
      issue.addIssue({
        code: 'custom',
        path: ['use_gpu'],
        message: 'give use_gpu (RoutIR) or device, not both',
      });
    const slots = promptSlots(config.prompt);
    if (slots.query !== 1 || slots.document !== 1)
      issue.addIssue({
        code: 'custom',
        path: ['prompt'],
        message: `must contain {query} once and {document} (or {passage}) once, got ${slots.query} and ${slots.document}`,
      });
  });

export type MT5Config = z.output<typeof mt5ConfigSchema>;

function promptSlots(prompt: string): { query: number; document: number } {
  const count = (pattern: RegExp) => prompt.match(pattern)?.length ?? 0;
  return { query: count(/\{query\}/g), document: count(/\{(document|passage)\}/g) };
}

/**
 * Validates a service's `config`; throws ERR_CONFIG listing every problem.
 *
 * @example
 * parseMT5Config({ model_name_or_path: 'models/monot5-base-msmarco' }).q_max_length // 180
 */
export function parseMT5Config(input: unknown): MT5Config {
  return parseEngineConfig(mt5ConfigSchema, input);
}

/**
 * The graphs and session options to acquire the model with; RoutIR's `use_gpu` becomes
 * `device` (`auto` or `cpu`) when `device` is not given.
 *
 * @example
 * seq2seqOptions(parseMT5Config({ model_path: 'm', use_gpu: true })).device // 'auto'
 */
export function seq2seqOptions(config: MT5Config): AcquireSeq2SeqOptions {
  const { encoder_file, decoder_file, use_gpu, device } = config;
  const chosen = device ?? (use_gpu === undefined ? undefined : use_gpu ? 'auto' : 'cpu');
  return {
    ...(encoder_file ? { encoderFile: encoder_file } : {}),
    ...(decoder_file ? { decoderFile: decoder_file } : {}),
    ...(chosen ? { device: chosen } : {}),
    execution_providers: config.execution_providers,
    intra_op_threads: config.intra_op_threads,
    inter_op_threads: config.inter_op_threads,
    graph_optimization: config.graph_optimization,
  };
}

/**
 * The seq2seq model an MT5Reranker config names, with the graphs it asks for.
 *
 * @example mt5Model(parseMT5Config({ model_name_or_path: 'castorini/monot5-base-msmarco' })).kind // 'seq2seq'
 */
export function mt5Model(config: MT5Config): ModelRequest {
  const { model_path, model_name_or_path, encoder_file, decoder_file } = config;
  return {
    reference: (model_path ?? model_name_or_path)!,
    kind: 'seq2seq',
    field: `config.${model_path === undefined ? 'model_name_or_path' : 'model_path'}`,
    graphs: {
      ...(encoder_file ? { encoder: encoder_file } : {}),
      ...(decoder_file ? { decoder: decoder_file } : {}),
    },
  };
}
