/**
 * `gpu_assignment`: which GPU of the host runs the models. llama.cpp has no per-model device
 * choice in node-llama-cpp, so the index goes to the backend's visibility variable
 * (CUDA_VISIBLE_DEVICES, GGML_VK_VISIBLE_DEVICES) before the backend first loads; the whole
 * process then uses that GPU. An index past the host's GPUs is refused with the count.
 */
import { readdir } from 'node:fs/promises';
import { IrserveError } from 'irserve/plugin';
import type { GpuBackend } from './device.js';

const VISIBILITY: Record<GpuBackend, string> = {
  cuda: 'CUDA_VISIBLE_DEVICES',
  vulkan: 'GGML_VK_VISIBLE_DEVICES',
};

/** NVIDIA GPUs the driver lists (one folder each), or undefined without an NVIDIA driver. */
export async function nvidiaGpuCount(
  root = '/proc/driver/nvidia/gpus',
): Promise<number | undefined> {
  try {
    return (await readdir(root)).length;
  } catch {
    return undefined;
  }
}

/**
 * Checks `index` against `count` GPUs; throws ERR_CONFIG naming both when out of range.
 *
 * @example
 * checkGpuIndex(2, 1) // throws: gpu_assignment 2 is out of range: this host has 1 GPU (0)
 */
export function checkGpuIndex(index: number, count: number | undefined): void {
  if (count === undefined) return;
  if (index >= count)
    throw new IrserveError(
      'ERR_CONFIG',
      `gpu_assignment ${index} is out of range: this host has ${count} GPU${count === 1 ? '' : 's'}${count > 0 ? ` (0..${count - 1})` : ''}`,
    );
}

/**
 * Makes GPU `index` the only one `backend` sees, unless the operator already chose through the
 * variable (then a different index is an error, as it would be silently ignored).
 *
 * @example
 * assignGpu('cuda', 1, process.env);
 */
export function assignGpu(backend: GpuBackend, index: number, env: NodeJS.ProcessEnv): void {
  const name = VISIBILITY[backend];
  const current = env[name];
  if (current === undefined || current === '') {
    env[name] = String(index);
    return;
  }
  if (current !== String(index))
    throw new IrserveError(
      'ERR_CONFIG',
      `gpu_assignment ${index} conflicts with ${name}=${current} (set for this process); one process uses one GPU: drop one of the two, or run a server per GPU`,
    );
}
