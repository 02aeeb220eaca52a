// Exhaustive dense search (Flat, SQfp16, SQ8), in memory and paged: irserve's WebAssembly SIMD
// kernels against the JavaScript scan they replaced, side by side in one run on the same saved
// index: top-k p50 per query at batch 1, and whether both return the same results.
//
//   npm run build && node bench/dense-scan.mjs [--n 200000] [--dims 384,768] [--queries 20]
//       [--k 10] [--threads 2] [--budget 64MiB]
//
// "paged" opens the index with a memory budget under its rows (--budget), so rows are read from
// the file in checksummed pages as the scan reaches them (the page cache of the OS keeps them).
// The JavaScript scan is the same index with `kernel: false`. Flat in memory has used dots.wat
// on every core since before codes.wat: its row is there for scale. Vectors are seeded random
// unit vectors (an exhaustive scan's speed does not depend on their shape); the index goes to a
// temporary directory, deleted at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './lib/median.mjs';
import { gaussianOf, seeded } from './lib/random.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '200000' },
    dims: { type: 'string', default: '384,768' },
    queries: { type: 'string', default: '20' },
    k: { type: 'string', default: '10' },
    threads: { type: 'string', default: '2' },
    budget: { type: 'string', default: String(64 << 20) },
  },
});
const dist = new URL('../packages/dense/dist/vector-index/', import.meta.url);
const { trainAndAdd, saveIndex, openIndex } = await import(new URL('index.js', dist).href);
const { ScanFlatIndex } = await import(new URL('scan-flat.js', dist).href);

const N = Number(values.n);
const NQ = Number(values.queries);
const K = Number(values.k);
const THREADS = Number(values.threads);
const BUDGET = Number(values.budget);

function unitVectors(count, dim, seed) {
  const normal = gaussianOf(seeded(seed));
  const out = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += (out[i * dim + j] = normal()) ** 2;
    for (let j = 0; j < dim; j++) out[i * dim + j] /= Math.sqrt(norm);
  }
  return out;
}

/** p50 ms per query (batch 1) after one warm-up query, and the results of every query. */
function timeQueries(index, queries, dim) {
  index.search(queries.subarray(0, dim), K);
  const times = [];
  const labels = [];
  for (let q = 0; q < NQ; q++) {
    const start = performance.now();
    const result = index.search(queries.subarray(q * dim, (q + 1) * dim), K);
    times.push(performance.now() - start);
    labels.push(...result.labels);
  }
  return { p50: median(times), labels };
}

/** The index as opened, and the same rows scored by the JavaScript scan. */
function bothWays(index, factory) {
  if (!(index instanceof ScanFlatIndex)) return { kernel: index, scan: undefined };
  const scan = new ScanFlatIndex(index.codec, index.rows, index.metric, factory, { kernel: false });
  return { kernel: index, scan };
}

const rows = [];
for (const dim of values.dims.split(',').map(Number)) {
  const vectors = unitVectors(N, dim, dim);
  const queries = unitVectors(NQ, dim, dim + 1);
  const ids = Array.from({ length: N }, (_, i) => String(i));
  for (const factory of ['Flat', 'SQfp16', 'SQ8']) {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-dense-scan-'));
    try {
      await saveIndex(trainAndAdd(factory, vectors, dim, 'ip', { threads: THREADS }), ids, dir);
      for (const served of ['memory', 'paged']) {
        const options = {
          threads: THREADS,
          ...(served === 'paged' ? { memoryBudget: BUDGET } : {}),
        };
        const { index } = await openIndex(dir, options);
        const { kernel, scan } = bothWays(index, factory);
        const after = timeQueries(kernel, queries, dim);
        const before = scan ? timeQueries(scan, queries, dim) : undefined;
        const same = before ? after.labels.every((l, i) => l === before.labels[i]) : undefined;
        rows.push({ dim, factory, served, before: before?.p50, after: after.p50, same });
        kernel.close?.();
        index.rows?.close?.();
        console.error(`${dim} ${factory} ${served} done`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

const ms = (x) => (x === undefined ? '-' : x.toFixed(1));
console.log(`\n${N} vectors, top-${K}, p50 ms per query at batch 1, ${THREADS} threads\n`);
console.log('| dim | storage | served | JavaScript scan | SIMD kernels | speed-up | same top-k |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const speedup = r.before === undefined ? '-' : `${(r.before / r.after).toFixed(1)}x`;
  const same = r.same === undefined ? '-' : r.same ? 'yes' : 'no';
  console.log(
    `| ${r.dim} | ${r.factory} | ${r.served} | ${ms(r.before)} | ${ms(r.after)} | ${speedup} | ${same} |`,
  );
}
