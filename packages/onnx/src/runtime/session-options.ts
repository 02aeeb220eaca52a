/** How an ONNX Runtime session is created: execution providers and threads. */
import { z } from 'irserve/plugin';
import { ONNX_DEVICES } from './device.js';

export const sessionOptionsSchema = z.strictObject({
  /**
   * Execution providers in order of preference (default `["cpu"]`). The gpu extra adds
   * `cuda`, `tensorrt`, ...; ONNX Runtime falls back along the list.
   */
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
});

/** Session options in config form (`intra_op_threads`, ...), defaults applied. */
export type SessionOptions = z.output<typeof sessionOptionsSchema>;

/**
 * Defaults for every field not given.
 *
 * @example
 * sessionOptions({ intra_op_threads: 2 }).execution_providers // ['cpu']
 */
export function sessionOptions(input: z.input<typeof sessionOptionsSchema> = {}): SessionOptions {
  return sessionOptionsSchema.parse(input);
}

/** A stable key: the same options give the same key whatever their order. */
export function sessionOptionsKey(options: SessionOptions): string {
  return JSON.stringify([
    options.execution_providers,
    options.device ?? null,
    options.intra_op_threads,
    options.inter_op_threads,
    options.graph_optimization,
  ]);
}
