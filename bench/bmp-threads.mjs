// `bmp` with its dense block bounds summed by one thread and by several (the search thread and
// helper threads over the kernel's shared memory: packages/sparse/src/search/bmp/split-bounds.ts),
// side by side in one process on the same index and queries, alternating rounds.
//
// Two parts:
// - the bound kernel alone (`--kernel`): the dense rows of 26 query terms (about what a SPLADE
//   query has among the frequent terms) summed over 32 K to 2.2 M blocks (8.8 M passages are
//   2.2 M blocks of 4), one thread against `--threads`: where the split starts to pay;
// - whole `bmp` searches (`--n` passages of the scale bench's SPLADE-like corpus,
//   bench/lib/splade-corpus.mjs, indexed in memory: nothing is written to disk), top 10 and top
//   1000, p50 and p99 per query, each query's passages and scores checked identical.
//
//   npm run build && node --max-old-space-size=8000 bench/bmp-threads.mjs [--n 1000000]
//       [--queries 200] [--threads 2] [--rounds 3] [--kernel] [--no_search] [--seed 1]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { seeded } from './lib/random.mjs';
import { spladeCorpus } from './lib/splade-corpus.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '200' },
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    kernel: { type: 'boolean', default: false },
    no_search: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
  },
});
const N = Number(values.n);
const QUERIES = Number(values.queries);
const THREADS = Number(values.threads);
const ROUNDS = Number(values.rounds);

const dist = new URL('../packages/sparse/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const { SparseIndexBuilder } = await load('index/index-builder.js');
const { DEFAULT_QUANTIZATION, DEFAULT_BLOCK_SIZE } = await load('build/build-index.js');
const { bmpScratch, bmpSearch, closeBmpScratch } = await load('search/bmp/bmp-search.js');
const { BoundsKernel } = await load('search/bmp/bounds-kernel.js');
const { SplitBounds } = await load('search/bmp/split-bounds.js');
const { queryTerms } = await load('search/query-terms.js');

const loads = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = (x) => (x < 10 ? x.toFixed(3) : x.toFixed(1));

async function ready(split) {
  for (let waited = 0; split.threads < THREADS; waited += 10) {
    if (waited > 30_000) throw new Error('the helper threads did not start');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Per-call times of `run(i)` for i < count, `ROUNDS` rounds of each variant, alternating. */
function alternate(variants, count, before) {
  const times = variants.map(() => []);
  for (let round = 0; round < ROUNDS + 1; round++) {
    variants.forEach((run, v) => {
      for (let i = 0; i < count; i++) {
        before?.(i);
        const started = performance.now();
        run(i);
        // Round 0 warms up (compiles the kernel, faults the pages in).
        if (round > 0) times[v].push(performance.now() - started);
      }
    });
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

async function kernelTable() {
  const TERMS = 26;
  const ROWS = 64;
  console.log(
    `\nBound kernel alone: ${TERMS} dense rows summed, p50 of ${200 * ROUNDS} sums (load ${loads()})\n`,
  );
  console.log(`| blocks (passages / 4) | 1 thread | ${THREADS} threads | speed-up |`);
  console.log('| ---: | ---: | ---: | ---: |');
  const random = seeded(7);
  for (const blocks of [32_768, 131_072, 262_144, 524_288, 1_048_576, 2_200_000]) {
    const kernel = new BoundsKernel(blocks, ROWS);
    for (let i = 0; i < kernel.rows.length; i++) kernel.rows[i] = Math.floor(random() * 256);
    const split = new SplitBounds(kernel, { threads: THREADS, minGroups: 1 });
    await ready(split);
    const setQuery = (q) => {
      kernel.reset();
      for (let t = 0; t < TERMS; t++) kernel.addRow((q * 7 + t * 3) % ROWS, 100 + t);
    };
    const [one, many] = alternate([() => kernel.sum(), () => split.sum()], 200, setQuery);
    await split.close();
    const [a, b] = [percentile(one, 0.5), percentile(many, 0.5)];
    console.log(
      `| ${blocks.toLocaleString('en')} | ${ms(a)} ms | ${ms(b)} ms | ${(a / b).toFixed(2)}x |`,
    );
  }
}

function buildIndex() {
  const started = performance.now();
  const random = seeded(Number(values.seed));
  const model = spladeCorpus({ random, topics: Math.max(1, Math.round(N / 250)) });
  const builder = new SparseIndexBuilder({
    quantization: DEFAULT_QUANTIZATION,
    blockSize: DEFAULT_BLOCK_SIZE,
    passageIds: 'auto',
    reorder: false,
    impactOrdered: false,
  });
  const wanted = new Set(Array.from({ length: QUERIES }, () => Math.floor(random() * N)));
  const sources = [];
  for (let i = 0; i < N; i++) {
    const vector = model.passageVector();
    if (wanted.has(i)) sources.push(vector);
    const tokens = Object.keys(vector).filter(
      (t) => Math.trunc(vector[t] * DEFAULT_QUANTIZATION) > 0,
    );
    const impacts = tokens.map((t) => Math.trunc(vector[t] * DEFAULT_QUANTIZATION));
    builder.add({ id: `doc${Math.floor(i / 3)}::${i % 3}`, tokens, impacts });
  }
  const index = builder.finish();
  const vectors = Array.from({ length: QUERIES }, (_, q) =>
    model.queryVector(sources[q % sources.length]),
  );
  console.error(
    `indexed ${N} passages in memory in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  return { index, vectors };
}

async function searchTable() {
  const { index, vectors } = buildIndex();
  const lookup = new Map(index.terms.map((t, i) => [t, i]));
  const queries = vectors.map((v) => queryTerms(lookup, v, index.quantization));
  const scratch = bmpScratch(index, { threads: { threads: THREADS, minGroups: 1 } });
  const split = scratch.split;
  await ready(split);
  const m = scratch.matrix;
  console.log(
    `\nbmp in memory, ${N.toLocaleString('en')} passages (${m.blocks.toLocaleString('en')} blocks, ${m.denseTerms} dense rows), ${QUERIES} queries x ${ROUNDS} rounds, alternating (load at the start ${loads()})\n`,
  );
  console.log(`| k | 1 thread p50 / p99 | ${THREADS} threads p50 / p99 | p50 speed-up |`);
  console.log('| ---: | ---: | ---: | ---: |');
  for (const k of [10, 1000]) {
    const answers = [[], []];
    const run = (v) => (i) => {
      scratch.split = v === 0 ? undefined : split;
      answers[v][i] = bmpSearch(queries[i], { k }, scratch);
    };
    const [one, many] = alternate([run(0), run(1)], queries.length);
    for (let i = 0; i < queries.length; i++) {
      const [a, b] = [answers[0][i], answers[1][i]];
      const same =
        a.ids.length === b.ids.length &&
        a.ids.every((id, j) => id === b.ids[j] && a.scores[j] === b.scores[j]);
      if (!same) throw new Error(`query ${i}, k ${k}: ${THREADS} threads answered differently`);
    }
    const cell = (t) => `${ms(percentile(t, 0.5))} / ${ms(percentile(t, 0.99))} ms`;
    console.log(
      `| ${k} | ${cell(one)} | ${cell(many)} | ${(percentile(one, 0.5) / percentile(many, 0.5)).toFixed(2)}x |`,
    );
  }
  scratch.split = split;
  await closeBmpScratch(scratch);
  console.log(`\nidentical passages and scores for every query; load at the end ${loads()}`);
}

if (values.kernel) await kernelTable();
if (!values.no_search) await searchTable();
