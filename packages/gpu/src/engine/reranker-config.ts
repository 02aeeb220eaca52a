/**
 * The `GgufReranker` config (docs/gpu.md): RoutIR's `Qwen3Reranker` fields where they apply
 * (`model_name_or_path`, `batch_size`, `max_length`, the instruction) plus the device fields.
 */
import { parseEngineConfig, z } from 'irserve/plugin';
import { checkModelPath, ggufModelFields } from './model-config.js';

export const ggufRerankerConfigSchema = z
  .strictObject({
    ...ggufModelFields,
    template: z
      .string()
      .includes('{query}')
      .includes('{passage}')
      .optional()
      .describe(
        "The ranking prompt with `{query}`, `{passage}` and optionally `{instruction}`; default: the GGUF's own rerank template (Qwen3-Reranker carries one), else [CLS] query [SEP] passage.",
      ),
    instruction: z
      .string()
      .min(1)
      .max(10_000)
      .default('Given a web search query, retrieve relevant passages that answer the query')
      .describe('Fills `{instruction}` in `template` (Qwen3-Reranker).'),
  })
  .superRefine(checkModelPath);

export type GgufRerankerConfig = z.output<typeof ggufRerankerConfigSchema>;

/**
 * Validates a service's `config`; throws ERR_CONFIG listing every problem.
 *
 * @example
 * parseGgufRerankerConfig({ model_path: 'bge-reranker-v2-m3-q8_0.gguf' }).batch_size // 1
 */
export function parseGgufRerankerConfig(input: unknown): GgufRerankerConfig {
  return parseEngineConfig(ggufRerankerConfigSchema, input);
}

/** node-llama-cpp's template syntax (`{{query}}`, `{{document}}`) with the instruction filled. */
export function llamaTemplate(config: GgufRerankerConfig): string | undefined {
  if (config.template === undefined) return undefined;
  return config.template
    .split('{instruction}')
    .join(config.instruction)
    .split('{query}')
    .join('{{query}}')
    .split('{passage}')
    .join('{{document}}');
}
