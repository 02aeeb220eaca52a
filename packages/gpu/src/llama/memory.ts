/**
 * Whether a model fits the GPU, checked before llama.cpp allocates: a model too large for the
 * GPU's memory is a clear error with both sizes, never an out-of-memory crash mid-load.
 */
import { IrserveError } from 'irserve/plugin';

/** `bytes` as MiB / GiB for messages. */
export function formatBytes(bytes: number): string {
  return bytes >= 2 ** 30
    ? `${(bytes / 2 ** 30).toFixed(2)} GiB`
    : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/**
 * Throws ERR_CONFIG when `needed` bytes of GPU memory exceed `free`.
 *
 * @example
 * checkFitsGpu({ model: 'qwen3-8b.gguf', needed: 16e9, free: 8e9, total: 8e9, layers: 'max' });
 */
export function checkFitsGpu(sizes: {
  model: string;
  needed: number;
  free: number;
  total: number;
  layers: string;
}): void {
  if (sizes.needed <= sizes.free) return;
  throw new IrserveError(
    'ERR_CONFIG',
    `model_path: ${sizes.model} needs ${formatBytes(sizes.needed)} of GPU memory with gpu_layers ${sizes.layers}, but the GPU has ${formatBytes(sizes.free)} free of ${formatBytes(sizes.total)}: lower gpu_layers (or "auto"), use a smaller quantisation, or device "cpu"`,
  );
}
