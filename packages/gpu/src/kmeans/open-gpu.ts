/**
 * The assigner for `--use_gpu`: CUDA when ONNX Runtime's CUDA provider is installed, then
 * WebGPU; without either it is an error naming both attempts, never a silent CPU run.
 */
import { CUDA_INSTALL_STEP, cudaProviderInstalled } from '@irserve/onnx';
import { GpuAssigner } from './gpu-assigner.js';

/**
 * The first GPU provider that initialises; `providers` forces a list (tests run the same code
 * on `["cpu"]`).
 *
 * @example
 * const assigner = await openGpuAssigner();
 */
export async function openGpuAssigner(providers?: string[]): Promise<GpuAssigner> {
  if (providers) return GpuAssigner.create(providers);
  const tried: string[] = [];
  for (const provider of ['cuda', 'webgpu']) {
    if (provider === 'cuda' && !cudaProviderInstalled()) {
      tried.push(`cuda: the CUDA provider library is not installed (${CUDA_INSTALL_STEP})`);
      continue;
    }
    try {
      return await GpuAssigner.create([provider]);
    } catch (error) {
      const message = ((error as Error).message.split('\n')[0] ?? '').trim();
      const reason = message.includes('was false. ')
        ? message.slice(message.indexOf('was false. ') + 11)
        : message;
      tried.push(
        `${provider}: ${reason.slice(0, 200)}${provider === 'cuda' ? ` (${CUDA_INSTALL_STEP})` : ''}`,
      );
    }
  }
  throw new Error(
    `--use_gpu: no GPU execution provider of ONNX Runtime could be used; tried ${tried.join('; ')}`,
  );
}
