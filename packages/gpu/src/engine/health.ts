/** What a GGUF engine reports in its start-up log and under `engines` in `/health`. */
import type { GgufLease } from '../llama/model-pool.js';

/**
 * The backend, the GPU(s), the model and, for `auto`, why GPU backends were passed over.
 *
 * @example
 * logger.info(runtimeHealth(lease), 'GGUF model loaded');
 */
export function runtimeHealth(lease: GgufLease): Record<string, unknown> {
  return {
    backend: 'llama.cpp',
    device: lease.runtime.backend,
    gpus: lease.runtime.gpus,
    model: lease.model.filename,
    architecture: lease.facts.architecture,
    pooling: lease.facts.pooling,
    gpu_layers: lease.model.gpuLayers,
    ...(lease.runtime.skipped.length > 0 ? { skipped: lease.runtime.skipped } : {}),
  };
}
