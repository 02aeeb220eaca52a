/**
 * The config fields every GGUF engine shares: the model file and where it runs. RoutIR's
 * `model_name_or_path` is accepted as an alias of `model_path`.
 */
import {
  resolveModel,
  z,
  type EngineContext,
  type ModelRequest as HubModelRequest,
} from 'irserve/plugin';
import { llamaDeviceSchema } from '../llama/device.js';
import type { ModelRequest } from '../llama/model-pool.js';
import type { ModelRole } from '../llama/model-kind.js';

export const ggufModelFields = {
  model_path: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The GGUF file (relative to the config file), e.g. `models/Qwen3-Embedding-0.6B-f16.gguf`, or a Hugging Face Hub id with a quantisation, e.g. `Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0`.',
    ),
  model_name_or_path: z.string().min(1).optional().describe("RoutIR's name for `model_path`."),
  device: llamaDeviceSchema,
  gpu_layers: z
    .union([z.literal('auto'), z.literal('max'), z.number().int().min(0).max(100_000)])
    .default('auto')
    .describe(
      'Layers offloaded to the GPU: `auto` (as many as fit), `max` (all; refused with the sizes when they do not fit), or a count.',
    ),
  gpu_assignment: z
    .number()
    .int()
    .min(0)
    .max(63)
    .optional()
    .describe(
      'Which GPU (0-based) runs the models of this process; checked against the GPUs present.',
    ),
  context_size: z
    .number()
    .int()
    .min(16)
    .max(1_048_576)
    .optional()
    .describe(
      "Tokens per llama.cpp context; default: max_length + 8, at most the model's training context.",
    ),
  max_length: z
    .number()
    .int()
    .min(8)
    .max(1_048_576)
    .default(8192)
    .describe(
      'Most tokens per text (or per query + passage); longer inputs are cut, never rejected.',
    ),
  llama_threads: z
    .number()
    .int()
    .min(0)
    .max(1024)
    .default(0)
    .describe(
      "CPU threads of each llama.cpp context; 0: node-llama-cpp's default (the math cores).",
    ),
  batch_size: z
    .number()
    .int()
    .min(1)
    .max(256)
    .default(1)
    .describe(
      'Texts evaluated at once, one llama.cpp context each (each holds its own KV memory of context_size tokens).',
    ),
};

/** A model_path / model_name_or_path pair given exactly once. */
export function checkModelPath(
  config: { model_path?: string | undefined; model_name_or_path?: string | undefined },
  issue: z.core.$RefinementCtx,
): void {
  if ((config.model_path === undefined) === (config.model_name_or_path === undefined))
    issue.addIssue({
      code: 'custom',
      path: ['model_path'],
      message: 'give the GGUF file as model_path (or its alias model_name_or_path), once',
    });
}

/** The model fields of a parsed GGUF engine config. */
type GgufModelSettings = z.output<z.ZodObject<typeof ggufModelFields>>;

/**
 * What the model pool is asked for by an engine with these settings: the GGUF file (a path
 * relative to the config file, or a hub id such as `Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0`,
 * fetched into the Hugging Face cache) in `role`, on the configured device, layers, GPU and
 * threads.
 *
 * @example await pool.acquire(await modelRequest(settings, context, 'ranking'), logger)
 */
export async function modelRequest(
  settings: GgufModelSettings,
  context: EngineContext,
  role: ModelRole,
): Promise<ModelRequest> {
  const model = await resolveModel(context, ggufModel(settings));
  return {
    path: model.path,
    role,
    device: settings.device,
    gpuLayers: settings.gpu_layers,
    gpuAssignment: settings.gpu_assignment,
    threads: settings.llama_threads,
  };
}

/**
 * The GGUF model an engine config names.
 *
 * @example ggufModel({ model_path: 'Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0', ... }).kind // 'gguf'
 */
export function ggufModel(settings: {
  model_path?: string | undefined;
  model_name_or_path?: string | undefined;
}): HubModelRequest {
  return {
    reference: (settings.model_path ?? settings.model_name_or_path)!,
    kind: 'gguf',
    field: `config.${settings.model_path === undefined ? 'model_name_or_path' : 'model_path'}`,
  };
}
