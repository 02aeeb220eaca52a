/**
 * `onnx_config.json`: irserve's optional file in a model folder, saying how the graph is meant to
 * be run when the usual exporter files do not (which output, which pooling, which prefixes).
 * Service config overrides it; it overrides what `sentence_bert_config.json` and
 * `1_Pooling/config.json` imply. Extras read their own keys from `extra` (plaidx: `dim`,
 * `query_marker`, ...), so unknown keys are kept, not rejected.
 */
import { z } from 'irserve/plugin';

export const POOLING_NAMES = ['cls', 'mean', 'max', 'last_token', 'none'] as const;
export type PoolingName = (typeof POOLING_NAMES)[number];

export const onnxConfigSchema = z.looseObject({
  /** The graph, relative to the folder (default: `model.onnx`, else `onnx/model.onnx`). */
  model_file: z.string().min(1).optional(),
  /** The output holding the token states or the embedding (default: the first output). */
  output: z.string().min(1).optional(),
  pooling: z.enum(POOLING_NAMES).optional(),
  normalize: z.boolean().optional(),
  max_length: z.number().int().min(1).max(1_000_000).optional(),
  query_prefix: z.string().optional(),
  passage_prefix: z.string().optional(),
  padding_side: z.enum(['left', 'right']).optional(),
});

export type OnnxConfig = z.output<typeof onnxConfigSchema>;
