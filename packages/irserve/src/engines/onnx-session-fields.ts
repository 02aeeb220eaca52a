/**
 * The config fields of an engine that runs a model in an ONNX Runtime session, declared once:
 * `@irserve/onnx`'s engines take all of them, `Dense`'s `encoder` and `SentenceTransformer`
 * and PLAID-X's `checkpoint` the ones they use. They live in the core so that an extra can
 * declare them in its config schema without loading ONNX Runtime (the dense extra's encoder is
 * optional).
 */
import { z } from '../prebundled/zod.js';

/** Where a session runs: `auto` tries CUDA, then WebGPU, else the CPU. */
export const ONNX_DEVICES = ['auto', 'cuda', 'webgpu', 'cpu'] as const;

/**
 * `execution_providers`, `device`, `intra_op_threads`, `inter_op_threads`,
 * `graph_optimization`, with their bounds, defaults and descriptions; spread the ones an engine
 * takes into its strict object.
 *
 * @example
 * const { execution_providers, device, intra_op_threads } = onnxSessionFields;
 * z.strictObject({ model_path: z.string(), execution_providers, device, intra_op_threads });
 */
export const onnxSessionFields = {
  execution_providers: z
    .array(z.string().min(1))
    .min(1)
    .max(8)
    .default(['cpu'])
    .describe(
      'ONNX Runtime execution providers in order of preference (default `["cpu"]`); the gpu extra adds `cuda`, `tensorrt`, ...',
    ),
  device: z
    .enum(ONNX_DEVICES)
    .optional()
    .describe(
      '`auto`: CUDA when its provider library is installed, then WebGPU, else the CPU (the log says why); `cuda`, `webgpu`: that provider or an error; `cpu`. Default: the IRSERVE_ONNX_DEVICE variable, else `execution_providers` as given.',
    ),
  intra_op_threads: z
    .number()
    .int()
    .min(0)
    .max(1024)
    .default(0)
    .describe("Threads one `session.run` may use; 0: ONNX Runtime's default (the physical cores)."),
  inter_op_threads: z
    .number()
    .int()
    .min(0)
    .max(1024)
    .default(0)
    .describe("Threads across independent graph nodes; 0: ONNX Runtime's default."),
  graph_optimization: z
    .enum(['disabled', 'basic', 'extended', 'all'])
    .default('all')
    .describe('Graph optimisations applied at load (default `all`).'),
};
