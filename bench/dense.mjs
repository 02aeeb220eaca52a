// Dense vector indexes: irserve's Flat, HNSW and IVF-PQ against Python faiss (Debian's
// python3-faiss) on the same vectors in the same run: build time, size on disk, queries/s at
// batch 1 and batch 32, recall@10 against exact search.
//
//   npm run build && node bench/dense.mjs [--n 200000] [--dim 768] [--queries 200]
//       [--hnsw HNSW32] [--ef 16,128] [--ivf IVF256,PQ32] [--nprobe 16]
//       [--sampling_rate 0.03] [--kmeans_iterations 10] [--shards <dir>] [--threads 2]
//
// Synthetic data (seeded): unit vectors drawn around 1,000 random centres, so neighbourhoods
// exist as in real embeddings (uniform random 768-d vectors have none and every ANN index
// fails on them). --shards <dir> uses real embeddings read with readShard instead (the first
// --n vectors; queries are the next --queries). Vectors and queries go to a temp dir as raw
// float32 for the faiss child process; indexes are written there too, deleted at the end.
// Both sides use the same threads, M, efConstruction (40), efSearch, nlist, nprobe, sample
// and k-means iterations.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { recallAtK } from './lib/recall.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '200000' },
    dim: { type: 'string', default: '768' },
    queries: { type: 'string', default: '200' },
    hnsw: { type: 'string', default: 'HNSW32' },
    ef: { type: 'string', default: '16,128' },
    ivf: { type: 'string', default: 'IVF256,PQ32' },
    nprobe: { type: 'string', default: '16' },
    sampling_rate: { type: 'string', default: '0.03' },
    kmeans_iterations: { type: 'string', default: '10' },
    threads: { type: 'string', default: '2' },
    shards: { type: 'string' },
    seconds: { type: 'string', default: '2' },
    latent: { type: 'string', default: '32' },
    only: { type: 'string', default: 'Flat,HNSW,IVF' },
  },
});
const dist = new URL('../packages/dense/dist/', import.meta.url);
const { trainAndAdd, saveIndex, openIndex } = await import(
  new URL('vector-index/index.js', dist).href
);
const { readShard, listShards } = await import(new URL('formats/index.js', dist).href);

const N = Number(values.n);
const NQ = Number(values.queries);
const THREADS = Number(values.threads);
const EFS = values.ef.split(',').map(Number);
const NPROBE = Number(values.nprobe);
const SAMPLING = Number(values.sampling_rate);
const ITERS = Number(values.kmeans_iterations);
const K = 10;

function gaussian(random) {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Unit vectors with a low intrinsic dimension, as real text embeddings have: a point of a
 * `latent`-dimensional Gaussian mixture (1,000 centres) mapped into `dim` dimensions by a fixed
 * random matrix, plus a little isotropic noise. Uniform random 768-d vectors have no
 * neighbourhoods, so every ANN index (faiss's included) finds few true neighbours on them.
 */
function synthetic(count, dim, seed, latent = Number(values.latent)) {
  const layout = mulberry32(1);
  const projection = new Float32Array(latent * dim).map(() => gaussian(layout) / Math.sqrt(latent));
  const centres = new Float32Array(1000 * latent).map(() => gaussian(layout));
  const random = mulberry32(seed);
  const z = new Float32Array(latent);
  const out = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    const c = Math.floor(random() * 1000) * latent;
    for (let l = 0; l < latent; l++) z[l] = centres[c + l] + 0.5 * gaussian(random);
    const row = out.subarray(i * dim, (i + 1) * dim);
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      let x = 0.05 * gaussian(random);
      for (let l = 0; l < latent; l++) x += z[l] * projection[l * dim + j];
      row[j] = x;
      norm += x * x;
    }
    for (let j = 0; j < dim; j++) row[j] /= Math.sqrt(norm);
  }
  return out;
}

async function realVectors(dir) {
  const parts = [];
  let dim = 0;
  let have = 0;
  for (const path of await listShards(dir)) {
    const shard = await readShard(path);
    dim = shard.dim;
    parts.push(shard.features);
    have += shard.count;
    if (have >= N + NQ) break;
  }
  const all = new Float32Array(have * dim);
  let o = 0;
  for (const p of parts) (all.set(p, o), (o += p.length));
  const n = Math.min(N, have - NQ);
  return { dim, data: all.slice(0, n * dim), queries: all.slice(n * dim, (n + NQ) * dim) };
}

/** queries/s at batch `b`: repeated passes over the queries for at least --seconds. */
function qps(search, queries, dim, b) {
  const nq = queries.length / dim;
  const started = performance.now();
  let done = 0;
  while (performance.now() - started < Number(values.seconds) * 1000) {
    for (let q = 0; q + b <= nq; q += b) search(queries.subarray(q * dim, (q + b) * dim));
    done += nq - (nq % b);
  }
  return (done * 1000) / (performance.now() - started);
}

async function dirBytes(dir) {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

/** Builds, saves, reopens and measures one irserve index; one row per search setting. */
async function runIrserve(factory, data, queries, dim, truth, dir, settings) {
  const out = join(dir, factory.replace(/,/g, '_'));
  const started = performance.now();
  const built = trainAndAdd(factory, data, dim, 'ip', {
    threads: THREADS,
    samplingRate: SAMPLING,
    kmeansIterations: ITERS,
    seed: 1,
  });
  await saveIndex(
    built,
    Array.from({ length: N }, (_, i) => String(i)),
    out,
  );
  const buildS = (performance.now() - started) / 1000;
  const { index } = await openIndex(out, { threads: THREADS });
  const bytes = await dirBytes(out);
  return settings.map(([label, options]) => ({
    system: 'irserve',
    index: `${factory}${label}`,
    buildS,
    bytes,
    recall: recallAtK(index.search(queries, K, options).labels, truth, K),
    qps1: qps((q) => index.search(q, K, options), queries, dim, 1),
    qps32: qps((q) => index.search(q, K, options), queries, dim, 32),
  }));
}

const PYTHON = String.raw`
import json, sys, time, os
import numpy as np, faiss
d, n, nq, k, threads = (int(x) for x in sys.argv[2:7])
hnsw, efs, ivf, nprobe, sampling, iters, seconds = sys.argv[7], [int(x) for x in sys.argv[8].split(',')], sys.argv[9], int(sys.argv[10]), float(sys.argv[11]), int(sys.argv[12]), float(sys.argv[13])
only = sys.argv[14].split(',')
faiss.omp_set_num_threads(threads)
base = sys.argv[1]
xb = np.fromfile(base + '/data.f32', dtype='float32').reshape(n, d)
xq = np.fromfile(base + '/queries.f32', dtype='float32').reshape(nq, d)
truth = np.fromfile(base + '/truth.i32', dtype='int32').reshape(nq, k)
def recall(I):
    return float(np.mean([len(set(I[i]) & set(truth[i])) / k for i in range(nq)]))
def qps(index, b):
    t = time.perf_counter(); done = 0
    while time.perf_counter() - t < seconds:
        for i in range(0, nq - b + 1, b):
            index.search(xq[i:i+b], k)
        done += nq - nq % b
    return done / (time.perf_counter() - t)
def size(index):
    path = base + '/faiss.index'; faiss.write_index(index, path); s = os.path.getsize(path); os.remove(path); return s
rows = []
def measure(name, index, build_s, setup=None):
    for label, fn in (setup or [('', lambda: None)]):
        fn()
        _, I = index.search(xq, k)
        rows.append(dict(system='faiss', index=name + label, buildS=build_s, bytes=size(index), recall=recall(I), qps1=qps(index, 1), qps32=qps(index, 32)))
def wanted(name): return any(name.startswith(o) for o in only)
if wanted('Flat'):
    t = time.perf_counter(); flat = faiss.IndexFlatIP(d); flat.add(xb); measure('Flat', flat, time.perf_counter() - t)
if wanted(hnsw):
    m = int(hnsw[4:])
    t = time.perf_counter(); h = faiss.IndexHNSWFlat(d, m, faiss.METRIC_INNER_PRODUCT); h.hnsw.efConstruction = 40; h.add(xb); bt = time.perf_counter() - t
    measure(hnsw, h, bt, [(' ef%d' % ef, (lambda ef=ef: setattr(h.hnsw, 'efSearch', ef))) for ef in efs])
if wanted(ivf):
    rng = np.random.default_rng(1)
    sample = xb[np.sort(rng.choice(n, int(round(n * sampling)), replace=False))]
    t = time.perf_counter(); iv = faiss.index_factory(d, ivf, faiss.METRIC_INNER_PRODUCT)
    iv.cp.niter = iters; faiss.downcast_index(iv).pq.cp.niter = iters
    iv.train(sample); iv.add(xb); bt = time.perf_counter() - t
    iv.nprobe = nprobe
    measure(ivf, iv, bt, [(' nprobe%d' % nprobe, lambda: None)])
print(json.dumps(rows))
`;

function runFaiss(dir, dim) {
  const args = [
    dir,
    dim,
    N,
    NQ,
    K,
    THREADS,
    values.hnsw,
    values.ef,
    values.ivf,
    NPROBE,
    SAMPLING,
    ITERS,
    values.seconds,
    values.only,
  ];
  for (const python of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(python, ['-c', PYTHON, ...args.map(String)], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
      // OpenBLAS threads on top of faiss's OpenMP threads oversubscribe the cores (IVF training
      // ran about 50x slower); faiss parallelizes with OpenMP itself. OMP_WAIT_POLICY passive
      // stops idle OpenMP threads spinning between single-query searches.
      env: {
        ...process.env,
        OMP_NUM_THREADS: String(THREADS),
        OPENBLAS_NUM_THREADS: '1',
        OMP_WAIT_POLICY: 'PASSIVE',
      },
    });
    if (r.status === 0) return JSON.parse(r.stdout.trim().split('\n').pop());
    console.error(
      `faiss via ${python} failed: ${(r.stderr || r.error?.message || '').slice(-400)}`,
    );
  }
  return [];
}

const fmt = (x, d = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const dir = await mkdtemp(join(tmpdir(), 'irserve-bench-dense-'));
try {
  const { data, queries, dim } = values.shards
    ? await realVectors(values.shards)
    : {
        data: synthetic(N, Number(values.dim), 7),
        queries: synthetic(NQ, Number(values.dim), 8),
        dim: Number(values.dim),
      };
  const exact = trainAndAdd('Flat', data, dim, 'ip', { threads: THREADS });
  const truth = exact.search(queries, K).labels;
  await writeFile(join(dir, 'data.f32'), data);
  await writeFile(join(dir, 'queries.f32'), queries);
  await writeFile(join(dir, 'truth.i32'), truth);
  console.error(`${N} vectors of dim ${dim}, ${NQ} queries, ${THREADS} threads`);
  const rows = [];
  const efRows = EFS.map((ef) => [` ef${ef}`, { efSearch: ef }]);
  const only = values.only.split(',');
  for (const [factory, settings] of [
    ['Flat', [['', {}]]],
    [values.hnsw, efRows],
    [values.ivf, [[` nprobe${NPROBE}`, { nprobe: NPROBE }]]],
  ].filter(([factory]) => only.some((o) => factory.startsWith(o)))) {
    rows.push(...(await runIrserve(factory, data, queries, dim, truth, dir, settings)));
    console.error(`irserve ${factory} done`);
  }
  rows.push(...runFaiss(dir, dim));
  rows.sort((a, b) => a.index.localeCompare(b.index) || a.system.localeCompare(b.system));
  console.log('| index | system | build s | size MiB | recall@10 | q/s batch 1 | q/s batch 32 |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    const cells = [
      r.index,
      r.system,
      fmt(r.buildS, 1),
      fmt(r.bytes / 2 ** 20, 1),
      fmt(r.recall, 3),
      fmt(r.qps1),
      fmt(r.qps32),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
