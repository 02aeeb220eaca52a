// bench/scale.mjs's dense rows: per dimension (768 and 384 by default) and storage choice,
// irserve-build-index over the generated shards (its own process: build time and peak RSS are
// the build's), then the index served by the Dense engine from memory and under a
// memory_budget that pages the vectors (an HNSW graph is memory-mapped).
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastJsonLine, measuredBuild, pagedBudget, runMeasured, servedAs } from '../measure.mjs';

const BUILDER = new URL('../../../../packages/dense/bin/irserve-build-index.js', import.meta.url)
  .pathname;
const CHILD = new URL('./dense-child.mjs', import.meta.url).pathname;
/**
 * Storage choices: exhaustive float32, float16, int8; IVF-PQ and HNSW (factory strings).
 * `IVF-HNSW-PQ` is IVF-PQ whose build assigns vectors through a graph over the centroids.
 */
export const DENSE_STORAGES = ['Flat', 'SQfp16', 'SQ8', 'IVF-PQ', 'HNSW32'];
const IVF_STORAGES = { 'IVF-PQ': '', 'IVF-HNSW-PQ': '_HNSW32' };
/** Most seconds of queries per depth (an exhaustive scan of 1 M vectors is slow). */
const QUERY_SECONDS = 60;

/** IVF lists: about sqrt(n), a power of two from 64 to 4,096; PQ: one byte per 8 dimensions. */
function ivfPq(size, dim, quantizer) {
  const nlist = 2 ** Math.min(12, Math.max(6, Math.round(Math.log2(Math.sqrt(size)))));
  return { factory: `IVF${nlist}${quantizer},PQ${dim / 8}`, nlist };
}

/** The builder's flags for `storage`: IVF trains on about 64 vectors per list, 10 iterations. */
function buildFlags(storage, size, dim) {
  const quantizer = IVF_STORAGES[storage];
  if (quantizer === undefined) return { factory: storage, flags: ['--index_string', storage] };
  const { factory, nlist } = ivfPq(size, dim, quantizer);
  const rate = Math.min(1, (64 * nlist) / size);
  const flags = ['--index_string', factory, '--sampling_rate', String(rate)];
  return { factory, flags: [...flags, '--kmeans_iterations', '10', '--nprobe', '16'] };
}

/** The dense engine over vectors of `dim` (its corpus: `vectors-<dim>`). */
export const denseOf = (dim) => ({
  name: `dense-${dim}`,
  corpus: `vectors-${dim}`,
  /** One build per storage choice, each served from memory, then paged; then removed. */
  async run({ size, corpus, work, ks, log, options }) {
    const rows = [];
    for (const storage of options.denseStorages ?? DENSE_STORAGES) {
      const { factory, flags } = buildFlags(storage, size, corpus.dim);
      const index = join(work, `index-${storage}`);
      log(`dense: building ${corpus.dim}-d ${factory}`);
      const build = await measuredBuild(
        process.execPath,
        [
          BUILDER,
          corpus.corpus,
          index,
          ...flags,
          ...(options.memoryBudget ? ['--memory_budget', options.memoryBudget] : []),
          ...(options.threads ? ['--threads', options.threads] : []),
        ],
        index,
      );
      const budget = pagedBudget(options, build.indexBytes);
      const servings = [
        ['memory', {}],
        [`paged ${budget}`, { memory_budget: budget }],
      ];
      // A mapped graph is hashed at its first start and checked by a stamp after: time both.
      if (storage.startsWith('HNSW'))
        servings.push([`paged ${budget} restart`, { memory_budget: budget }]);
      for (const [how, config] of servings) {
        log(`dense: serving ${corpus.dim}-d ${factory} (${how})`);
        const spec = join(work, `dense-${storage}-${how.replaceAll(' ', '-')}.json`);
        const { queries, dim } = corpus;
        const seconds = QUERY_SECONDS;
        await writeFile(spec, JSON.stringify({ index, queries, dim, ks, config, work, seconds }));
        const measured = await runMeasured(process.execPath, [CHILD, spec]);
        const served = lastJsonLine(measured.stdout);
        const variant = `${dim}-d ${factory} (${servedAs(served.health, how)})`;
        rows.push({ variant, build, ...served });
      }
      if (!options.keep) await rm(index, { recursive: true, force: true });
    }
    return rows;
  },
});
