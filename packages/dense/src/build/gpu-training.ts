/**
 * `--use_gpu`: IVF centroids and PQ codebooks trained with the gpu extra's ONNX Runtime
 * assigner (CUDA, else WebGPU), vectors added on the CPU afterwards, as RoutIR does. Without
 * @irserve/gpu, or without a usable GPU, it is an error naming what was tried.
 */
import type { FactorySpec } from '../vector-index/factory.js';
import { pretrainIvf } from '../vector-index/pretrain.js';
import type { PretrainedIvf, TrainOptions } from '../vector-index/train-options.js';
import type { Metric } from '../vector-index/types.js';

/** What this file needs of `@irserve/gpu/kmeans` (typed here: dense does not depend on it). */
interface GpuAssigner {
  readonly providers: string[];
  assign(
    centroids: Float32Array,
    data: Float32Array,
    dim: number,
    metric: Metric,
  ): Promise<Int32Array>;
  close(): Promise<void>;
}

interface GpuKmeansModule {
  openGpuAssigner(providers?: string[]): Promise<GpuAssigner>;
}

async function importGpuKmeans(): Promise<GpuKmeansModule> {
  const name = '@irserve/gpu/kmeans';
  try {
    return (await import(name)) as GpuKmeansModule;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new Error(
        '--use_gpu trains on a GPU with the package @irserve/gpu, which is not installed: npm install @irserve/gpu',
        {
          cause: error,
        },
      );
    throw error;
  }
}

/**
 * Trains `spec` on the first GPU provider that initialises (or on `providers`, forced).
 *
 * @example
 * const trained = await trainOnGpu(spec, vectors, 768, 'ip', train, (line) => log(line));
 */
export async function trainOnGpu(
  spec: FactorySpec,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  train: TrainOptions,
  log: (line: string) => void,
  providers?: string[],
): Promise<PretrainedIvf> {
  if (spec.kind !== 'ivf-flat' && spec.kind !== 'ivf-pq')
    throw new Error(
      `--use_gpu trains IVF centroids and PQ codebooks; ${spec.factory} has nothing to train (drop --use_gpu)`,
    );
  const gpu = await importGpuKmeans();
  const assigner = await gpu.openGpuAssigner(providers);
  log(`training ${spec.factory} on ONNX Runtime's ${assigner.providers.join(', ')} provider`);
  try {
    return await pretrainIvf(spec, vectors, dim, metric, train, (c, d, n, m) =>
      assigner.assign(c, d, n, m),
    );
  } finally {
    await assigner.close();
  }
}
