/**
 * The `CrossEncoderReranker` config (docs/models.md). `model_name_or_path` is RoutIR's name
 * (Qwen3Reranker, MT5Reranker) for `model_path`, accepted as an alias.
 */
import { batchSizeField, parseEngineConfig, z, type ModelRequest } from 'irserve/plugin';
import { sessionOptionsSchema } from '../runtime/session-options.js';

/** Qwen3-Reranker's prompt: the answer is the next token, "yes" or "no". */
export const QWEN3_RERANKER_TEMPLATE =
  '<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. Note that the answer can only be "yes" or "no".<|im_end|>\n<|im_start|>user\n<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {passage}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';

export const QWEN3_RERANKER_INSTRUCTION =
  'Given a web search query, retrieve relevant passages that answer the query';

export const crossEncoderConfigSchema = z
  .strictObject({
    model_path: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The model folder (model.onnx + tokenizer.json), relative to the config file, or a Hugging Face Hub id (`org/name[@revision][/path]`) fetched into the Hugging Face cache (docs/models.md).',
      ),
    model_name_or_path: z.string().min(1).optional().describe("RoutIR's name for `model_path`."),
    /**
     * `classifier`: a sequence-classification head (`logits [batch, labels]`);
     * `yes_no`: an LLM's next-token logits (`[batch, seq, vocab]`), score p(yes);
     * `auto` (default): by the rank of the output.
     */
    mode: z
      .enum(['auto', 'classifier', 'yes_no'])
      .default('auto')
      .describe(
        "`classifier`: a sequence-classification head (logits [batch, labels]); `yes_no`: an LLM's next-token logits, score p(yes); `auto`: by the rank of the output.",
      ),
    output: z
      .string()
      .min(1)
      .optional()
      .describe('The graph output (default: `logits`, else the first).'),
    max_length: z
      .number()
      .int()
      .min(8)
      .max(1_000_000)
      .optional()
      .describe(
        "Most tokens per (query, passage); passages are cut, never rejected. Default: the folder's, else 512.",
      ),
    batch_size: batchSizeField('Pairs per `session.run`; larger batches are split.'),
    activation: z
      .enum(['none', 'sigmoid', 'softmax'])
      .default('none')
      .describe('`classifier`: applied to the logit (`softmax` over the labels for 2+ labels).'),
    label: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .optional()
      .describe(
        '`classifier`: which logit is the score (default: the last, i.e. "relevant" of 2 labels).',
      ),
    template: z
      .string()
      .includes('{passage}')
      .default(QWEN3_RERANKER_TEMPLATE)
      .describe('`yes_no`: the prompt; `{query}`, `{passage}` (exactly once) and `{instruction}`.'),
    instruction: z
      .string()
      .default(QWEN3_RERANKER_INSTRUCTION)
      .describe(
        "`yes_no`: the template's `{instruction}` (default: Qwen3-Reranker's web search one).",
      ),
    yes_token: z
      .string()
      .min(1)
      .default('yes')
      .describe('`yes_no`: the token whose probability is the score.'),
    no_token: z
      .string()
      .min(1)
      .default('no')
      .describe('`yes_no`: the token p(yes) is weighed against.'),
    ...sessionOptionsSchema.shape,
  })
  .superRefine((config, issue) => {
    if ((config.model_path === undefined) === (config.model_name_or_path === undefined))
      issue.addIssue({
        code: 'custom',
        path: ['model_path'],
        message: 'give the model folder as model_path (or its alias model_name_or_path), once',
      });
  });

export type CrossEncoderConfig = z.output<typeof crossEncoderConfigSchema>;

/**
 * Validates a service's `config`; throws ERR_CONFIG listing every problem.
 *
 * @example
 * parseCrossEncoderConfig({ model_path: 'models/ms-marco-MiniLM-L6' }).batch_size // 32
 */
export function parseCrossEncoderConfig(input: unknown): CrossEncoderConfig {
  return parseEngineConfig(crossEncoderConfigSchema, input);
}

/**
 * The model a CrossEncoderReranker config names.
 *
 * @example crossEncoderModel(parseCrossEncoderConfig({ model_path: 'cross-encoder/ms-marco-MiniLM-L6-v2' })).kind // 'onnx'
 */
export function crossEncoderModel(config: CrossEncoderConfig): ModelRequest {
  const { model_path, model_name_or_path } = config;
  return {
    reference: (model_path ?? model_name_or_path)!,
    kind: 'onnx',
    field: `config.${model_path === undefined ? 'model_name_or_path' : 'model_path'}`,
  };
}
