/**
 * `encoder`: the local ONNX model of a Dense service. Kept free of any import of
 * @irserve/onnx, so a Dense service over an embeddings API never loads the ONNX runtime.
 */
import { batchSizeField, onnxSessionFields, z, type ModelRequest } from 'irserve/plugin';

const { execution_providers, device, intra_op_threads } = onnxSessionFields;

export const encoderConfigSchema = z.strictObject({
  model_path: z
    .string()
    .min(1)
    .describe(
      'The model folder (model.onnx + tokenizer.json), relative to the config file, or a Hugging Face Hub id (`org/name[@revision][/path]`) fetched into the Hugging Face cache (docs/models.md).',
    ),
  pooling: z
    .enum(['cls', 'mean', 'max', 'last_token', 'none'])
    .optional()
    .describe(
      "`cls`, `mean`, `max`, `last_token` (Qwen3), `none` (the graph pools). Default: the folder's, else mean.",
    ),
  normalize: z
    .boolean()
    .optional()
    .describe(
      "L2-normalise the embeddings. Default: the folder's (a sentence-transformers Normalize).",
    ),
  max_length: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe("Most tokens per text; longer texts are cut. Default: the folder's, else 512."),
  batch_size: batchSizeField('Texts per `session.run`; larger batches are split.'),
  output: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The graph output to pool (default: last_hidden_state, token_embeddings, sentence_embedding).',
    ),
  query_prompt: z
    .string()
    .includes('{query}')
    .optional()
    .describe('Template of a query\'s text; `{query}` is replaced (`"query: {query}"` for E5).'),
  passage_prompt: z
    .string()
    .includes('{passage}')
    .optional()
    .describe(
      'Template of a passage\'s text; `{passage}` is replaced (`"passage: {passage}"` for E5).',
    ),
  execution_providers,
  device,
  intra_op_threads,
});

export type EncoderConfig = z.output<typeof encoderConfigSchema>;

/**
 * The model an `encoder` names (a folder or a hub id).
 *
 * @example encoderModel({ model_path: 'BAAI/bge-small-en-v1.5', ... }).field // 'config.encoder.model_path'
 */
export function encoderModel(encoder: EncoderConfig): ModelRequest {
  return { reference: encoder.model_path, kind: 'onnx', field: 'config.encoder.model_path' };
}
