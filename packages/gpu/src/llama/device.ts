/**
 * Which llama.cpp backend runs a GGUF model, and the one step that installs a missing one.
 * A plain `npm ci` installs only the CPU binary; the CUDA and Vulkan binaries (hundreds of MB)
 * come with `npx irserve-gpu-install cuda|vulkan` on a GPU host.
 */
import { IrserveError, z } from 'irserve/plugin';

export const LLAMA_DEVICES = ['auto', 'cuda', 'vulkan', 'cpu'] as const;
export type LlamaDevice = (typeof LLAMA_DEVICES)[number];
export type GpuBackend = 'cuda' | 'vulkan';

export const llamaDeviceSchema = z
  .enum(LLAMA_DEVICES)
  .default('auto')
  .describe(
    '`auto`: CUDA, else Vulkan, else CPU (the start-up log says why); `cuda`, `vulkan`: that GPU backend or an error naming the install step; `cpu`.',
  );

/** The binary package of each GPU backend on Linux x64. */
export const BACKEND_PACKAGES: Record<GpuBackend, string[]> = {
  cuda: ['@node-llama-cpp/linux-x64-cuda', '@node-llama-cpp/linux-x64-cuda-ext'],
  vulkan: ['@node-llama-cpp/linux-x64-vulkan'],
};

/** The command that installs a backend's binaries next to node-llama-cpp. */
export function installStep(backend: GpuBackend): string {
  return `npx irserve-gpu-install ${backend}`;
}

/**
 * The ERR_CONFIG for a GPU backend that could not be loaded: what was tried, why, and the step.
 *
 * @example
 * throw missingBackend('cuda', 'no prebuilt binary found');
 */
export function missingBackend(backend: GpuBackend, reason: string): IrserveError {
  return new IrserveError(
    'ERR_CONFIG',
    `device "${backend}": llama.cpp's ${backend.toUpperCase()} backend cannot be loaded (${reason}). ` +
      `Its binaries (${BACKEND_PACKAGES[backend].join(', ')}) are not part of a plain npm ci; on a host with the GPU driver run: ${installStep(backend)}`,
  );
}
