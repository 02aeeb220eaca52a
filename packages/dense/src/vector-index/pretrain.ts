/**
 * IVF training with the assignment step elsewhere (`irserve-build-index --use_gpu`): the same
 * sample, seeds, k-means and PQ as the CPU build, with every n·k·d assignment of k-means run
 * by `assignAsync` (a GPU). The vectors are then added on the CPU with the result.
 */
import type { FactorySpec } from './factory.js';
import { PQ_MAX_TRAIN, trainingSample } from './ivf-build.js';
import { residuals } from './ivf-encode.js';
import { kmeansWith, type AsyncAssign } from './kmeans.js';
import { PQ_KSUB, subspace } from './pq.js';
import type { PretrainedIvf, TrainOptions } from './train-options.js';
import type { Metric } from './types.js';

/**
 * Trains the coarse centroids (and PQ codebooks) of an IVF spec with `assignAsync`.
 *
 * @example
 * const trained = await pretrainIvf(spec, vectors, 768, 'ip', { seed: 0 }, gpu.assign);
 * trainAndAdd(spec, vectors, 768, 'ip', { trained });
 */
export async function pretrainIvf(
  spec: Extract<FactorySpec, { kind: 'ivf-flat' | 'ivf-pq' }>,
  vectors: Float32Array,
  dim: number,
  metric: Metric,
  options: TrainOptions,
  assignAsync: AsyncAssign,
): Promise<PretrainedIvf> {
  const { seed = 1234, threads = 0, kmeansIterations = 25 } = options;
  const sample = trainingSample(spec, vectors, dim, options);
  const total = kmeansIterations * (spec.kind === 'ivf-pq' ? 1 + spec.pqM : 1);
  const centroids = await kmeansWith(assignAsync, sample, dim, spec.nlist, {
    iterations: kmeansIterations,
    seed,
    metric,
    onIteration: (done) => options.progress?.('train', done, total),
  });
  if (spec.kind !== 'ivf-pq') return { centroids };
  const n = Math.min(sample.length / dim, PQ_MAX_TRAIN);
  const res = residuals(sample.subarray(0, n * dim), centroids, dim, metric, threads);
  if (dim % spec.pqM !== 0)
    throw new Error(`PQ${spec.pqM}: the dimension ${dim} is not a multiple of ${spec.pqM}`);
  if (n < PQ_KSUB) throw new Error(`PQ training needs at least ${PQ_KSUB} vectors, got ${n}`);
  const dsub = dim / spec.pqM;
  const codebooks = new Float32Array(spec.pqM * PQ_KSUB * dsub);
  for (let j = 0; j < spec.pqM; j++) {
    const book = await kmeansWith(assignAsync, subspace(res, dim, dsub, j), dsub, PQ_KSUB, {
      iterations: kmeansIterations,
      seed: seed + 1 + j,
      metric: 'l2',
    });
    codebooks.set(book, j * PQ_KSUB * dsub);
    options.progress?.('train', kmeansIterations * (2 + j), total);
  }
  return { centroids, pq: { m: spec.pqM, dsub, codebooks } };
}
