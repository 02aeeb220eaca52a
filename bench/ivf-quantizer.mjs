// IVF builds with exact centroid assignment (`IVF<n>,...`) against assignment by an HNSW graph
// over the centroids (`IVF<n>_HNSW<M>,...`, faiss's spelling), side by side in one run on the
// same vectors: k-means training seconds (and per iteration), add seconds (assign + encode),
// how often the graph picks the exact nearest centroid, and recall@10 of the built index.
//
//   npm run build && node bench/ivf-quantizer.mjs [--n 100000] [--dim 768] [--nlist 1024,4096]
//       [--m 32] [--storage Flat] [--per_list 64] [--iterations 10] [--nprobe 16]
//       [--queries 100] [--threads 2]
//
// Vectors are the scale bench's synthetic corpus (bench/lib/scale/corpora/vectors.mjs: unit
// vectors around one mixture centre per 250 passages, at most 4,096), generated in memory.
// The training sample is --per_list vectors a list (the scale bench's 64), as --sampling_rate
// would give; --iterations k-means iterations (fewer make a quick run: the per-iteration time
// scales). `Flat` storage shows the coarse quantizer's cost and recall alone. CPU seconds count
// every thread of the process and not the time it was paused, so they hold on a busy machine.
import { parseArgs } from 'node:util';
import { recallAtK } from './lib/recall.mjs';
import { seeded } from './lib/random.mjs';
import { mixture, PASSAGE_NOISE, QUERY_NOISE } from './lib/scale/corpora/vectors.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    dim: { type: 'string', default: '768' },
    nlist: { type: 'string', default: '1024,4096' },
    m: { type: 'string', default: '32' },
    storage: { type: 'string', default: 'Flat' },
    per_list: { type: 'string', default: '64' },
    iterations: { type: 'string', default: '10' },
    nprobe: { type: 'string', default: '16' },
    queries: { type: 'string', default: '100' },
    threads: { type: 'string', default: '2' },
  },
});
const [N, DIM, NQ, THREADS] = ['n', 'dim', 'queries', 'threads'].map((k) => Number(values[k]));
const K = 10;
const dist = new URL('../packages/dense/dist/vector-index/', import.meta.url);
const load = (name) => import(new URL(name, dist).href);
const { trainAndAdd, parseFactory } = await load('index.js');
const { trainIvf } = await load('ivf-build.js');
const { CentroidAssigner } = await load('centroid-assigner.js');
const { CentroidGraph } = await load('centroid-graph.js');

/** The scale corpus's vectors and queries, in memory. */
function corpus() {
  const random = seeded(7);
  const model = mixture({ random, dim: DIM, centroids: Math.min(4096, Math.round(N / 250)) });
  const data = new Float32Array(N * DIM);
  for (let i = 0; i < N; i++) model.draw(model.pick(), PASSAGE_NOISE, data, i * DIM);
  const queries = new Float32Array(NQ * DIM);
  for (let q = 0; q < NQ; q++) model.draw(model.pick(), QUERY_NOISE, queries, q * DIM);
  return { data, queries };
}

/** Wall and CPU seconds (all threads) since `started`; CPU time ignores the process being paused. */
const now = () => ({ wall: performance.now(), cpu: process.cpuUsage() });
function seconds(started) {
  const { user, system } = process.cpuUsage(started.cpu);
  return { wall: (performance.now() - started.wall) / 1000, cpu: (user + system) / 1e6 };
}

/** Trains and adds one factory; the graph's agreement with exact assignment on 20,000 rows. */
function measure(factory, data, queries, truth) {
  const spec = parseFactory(factory);
  const iterations = Number(values.iterations);
  const samplingRate = Math.min(1, (spec.nlist * Number(values.per_list)) / N);
  const options = { threads: THREADS, seed: 1, kmeansIterations: iterations, samplingRate };
  const sampleRows = Math.round(N * samplingRate);
  const sample = data.subarray(0, sampleRows * DIM);
  let started = now();
  const trained = trainIvf(spec, sample, DIM, 'ip', options);
  const train = seconds(started);
  started = now();
  const index = trainAndAdd(spec, data, DIM, 'ip', { ...options, trained });
  const add = seconds(started);
  const found = index.search(queries, K, { nprobe: Number(values.nprobe) });
  let agreement = 1;
  if (spec.quantizerM !== undefined) {
    const rows = data.subarray(0, Math.min(N, 20_000) * DIM);
    const exact = new CentroidAssigner(trained.centroids, DIM, 'ip', THREADS);
    const graph = new CentroidGraph(trained.centroids, DIM, 'ip', {
      m: spec.quantizerM,
      threads: THREADS,
    });
    const [a, b] = [exact.assign(rows), graph.assign(rows)];
    exact.close();
    agreement = a.reduce((same, label, i) => same + (label === b[i] ? 1 : 0), 0) / a.length;
  }
  return {
    factory,
    sampleRows,
    train,
    perIteration: train.cpu / iterations,
    add,
    agreement,
    recall: recallAtK(found.labels, truth, K),
  };
}

const { data, queries } = corpus();
const truth = trainAndAdd('Flat', data, DIM, 'ip', { threads: THREADS }).search(queries, K).labels;
const rows = [];
for (const nlist of values.nlist.split(',')) {
  for (const factory of [
    `IVF${nlist},${values.storage}`,
    `IVF${nlist}_HNSW${values.m},${values.storage}`,
  ]) {
    rows.push(measure(factory, data, queries, truth));
    console.error(`done ${factory}`);
  }
}
console.log(
  `\n${N} x ${DIM} (ip), ${values.iterations} k-means iterations, ${values.per_list} training vectors a list, ` +
    `${THREADS} threads, recall@${K} at nprobe ${values.nprobe} over ${NQ} queries\n`,
);
console.log(
  '| factory | sample | train s (CPU s) | CPU s / iteration | add s (CPU s) | graph = exact | recall@10 |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const both = ({ wall, cpu }) => `${wall.toFixed(1)} (${cpu.toFixed(1)})`;
for (const r of rows)
  console.log(
    `| ${r.factory} | ${r.sampleRows} | ${both(r.train)} | ${r.perIteration.toFixed(2)} | ` +
      `${both(r.add)} | ${r.factory.includes('_HNSW') ? `${(100 * r.agreement).toFixed(1)}%` : '-'} | ${r.recall.toFixed(3)} |`,
  );
