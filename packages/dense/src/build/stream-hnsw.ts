/**
 * Streamed HNSW builds: usearch holds the graph and its vectors in memory, so the build first
 * checks that they fit the budget, then adds the vectors chunk by chunk, in order.
 */
import type { FactorySpec } from '../vector-index/factory.js';
import { createUsearchIndex } from '../vector-index/hnsw.js';
import { sq8ExtraDims } from '../vector-index/sq8.js';
import { FILES } from '../vector-index/storage.js';
import { addHnswChunk, HNSW_CHUNK, hnswParams } from '../vector-index/train.js';
import type { BuildContext, BuiltData } from './build-context.js';
import { formatBytes } from './memory-budget.js';
import { forEachChunk } from './shard-passes.js';

type HnswSpec = Extract<FactorySpec, { kind: 'hnsw' }>;

/** usearch's bytes per vector: the stored vector, two layers' worth of links, its bookkeeping. */
export function hnswBytesPerVector(spec: HnswSpec, dim: number, metric: 'ip' | 'l2'): number {
  const scalar = { f32: 4, f16: 2, i8: 1 }[spec.quantization];
  const stored = (dim + (spec.quantization === 'i8' ? sq8ExtraDims(metric) : 0)) * scalar;
  return stored + 2 * spec.m * 4 + 48;
}

export async function streamHnsw(ctx: BuildContext, spec: HnswSpec): Promise<BuiltData> {
  const { survey, metric, output } = ctx;
  const need =
    survey.count * hnswBytesPerVector(spec, survey.dim, metric) + survey.largestShardBytes;
  if (need > ctx.memoryBudget)
    throw new Error(
      `${spec.factory} over ${survey.count} vectors holds about ${formatBytes(need)} in memory ` +
        `(usearch keeps the graph and the vectors), more than --memory_budget ` +
        `${formatBytes(ctx.memoryBudget)}: raise the budget, or use IVF<nlist>,SQ8 or ` +
        `IVF<nlist>,PQ<m>, which build in any budget`,
    );
  const params = hnswParams(spec, survey.dim, metric, ctx.train, survey.maxSquaredNorm);
  const index = createUsearchIndex(params);
  const adding = ctx.bar('add', survey.count, 'vectors');
  await forEachChunk(ctx.shards, survey.dim, HNSW_CHUNK, async (vectors, first) => {
    addHnswChunk(index, params, vectors, first, ctx.threads);
    adding.update(first + vectors.length / survey.dim);
  });
  adding.done();
  index.save(output.claim(FILES.hnswGraph));
  await output.listed(FILES.hnswGraph);
  const { m, quantization, efConstruction, efSearch, sq8Norm } = params;
  return { kind: 'hnsw', params: { m, quantization, efConstruction, efSearch, sq8Norm } };
}
