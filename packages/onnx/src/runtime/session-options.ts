/** How an ONNX Runtime session is created: execution providers and threads. */
import { onnxSessionFields, z } from 'irserve/plugin';

/** Every session field (their declaration is the core's, shared with the extras' configs). */
export const sessionOptionsSchema = z.strictObject(onnxSessionFields);

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
