// Where a streamed IVF-PQ build's time goes, and what a change to its add pass saves, side by
// side in one run on the same shards:
//
//   npm run build && node bench/ivf-add.mjs [--n 300000] [--dim 768] [--pq 96]
//       [--factories IVF4096_HNSW32,PQ96:IVF1024,PQ96] [--sampling_rate 0.03] [--threads 2]
//       [--kmeans_iterations 25]
//       [--memory_budget 12G] [--baseline <an older build's packages/dense/dist>]
//       [--dir <scratch folder>] [--keep] [--skip_parts] [--skip_builds]
//
// 1. Per-vector CPU of each part of the add pass, on one chunk (16,384 rows, one thread):
//    reading and parsing a shard, assigning by the centroid graph (`_HNSW32`) and exactly,
//    a worker's residuals and PQ encoding as they were (a residual array, then the exhaustive
//    search per sub-space) and as they are (pq-encode.wat, residuals in its memory), spilling
//    the entries to a sorted run and merging runs back. Stand-in centroids (corpus rows) and
//    codebooks (PQ trained on a few thousand residuals, 4 iterations): the costs depend on the
//    shapes, not on how well they were trained.
// 2. Whole builds through `buildIndex` (what `irserve-build-index` runs), each in its own
//    process: wall and CPU seconds per phase (read: the survey; sampling; train; add: assign,
//    encode and spill; lists: the merge and writing), peak RSS, and whether the index files are
//    byte-identical to the baseline's (with --baseline: the same builds by an older dist).
//
// The corpus is the scale bench's (bench/lib/scale/corpora/vectors.mjs) written as shards into
// --dir (a new temporary folder by default, deleted at the end unless --keep): n x dim x 4
// bytes. CPU seconds count every thread of a process and not the time it was paused.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeVectorCorpus } from './lib/scale/corpora/vectors.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '300000' },
    dim: { type: 'string', default: '768' },
    pq: { type: 'string', default: '96' },
    factories: { type: 'string', default: 'IVF4096_HNSW32,PQ96:IVF1024,PQ96' },
    sampling_rate: { type: 'string', default: '0.03' },
    kmeans_iterations: { type: 'string' },
    threads: { type: 'string', default: '2' },
    memory_budget: { type: 'string' },
    baseline: { type: 'string' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    skip_parts: { type: 'boolean', default: false },
    skip_builds: { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});
const current = new URL('../packages/dense/dist/', import.meta.url).pathname;
const CHUNK = 16_384;

/** Wall and CPU seconds (all threads) since `started`. */
const now = () => ({ wall: performance.now(), cpu: process.cpuUsage() });
function since(started) {
  const { user, system } = process.cpuUsage(started.cpu);
  return { wall: (performance.now() - started.wall) / 1000, cpu: (user + system) / 1e6 };
}

/** Child mode: one build with `dist`'s buildIndex; prints its phases as JSON. */
async function child({ dist, options }) {
  const { buildIndex } = await import(join(dist, 'build/build-index.js'));
  const phases = [];
  let last = now();
  const info = (line) => {
    const done = /^([\w-]+): .* done in [\d.]+s/.exec(line);
    if (!done) return;
    phases.push({ phase: done[1], ...since(last) });
    last = now();
  };
  const started = now();
  const report = await buildIndex({ ...options, logger: { info }, interactive: false });
  const total = since(started);
  console.log(JSON.stringify({ phases, total, peakRss: report.peakRssBytes, runs: report.runs }));
}

/** sha256 of every index file but the manifest (it holds the build's seconds). */
async function indexDigest(dir) {
  const hash = createHash('sha256');
  for (const name of (await readdir(dir)).sort()) {
    if (name === 'manifest.json') continue;
    hash.update(name).update(await readFile(join(dir, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds `factory` from `shards` with `dist` in a child process; its phases and digest. */
async function build(dist, factory, shards, scratch) {
  const outputDir = join(scratch, `index-${Math.random().toString(36).slice(2)}`);
  const options = {
    inputDir: shards,
    outputDir,
    indexString: factory,
    samplingRate: Number(values.sampling_rate),
    threads: Number(values.threads),
    ...(values.memory_budget ? { memoryBudget: parseSize(values.memory_budget) } : {}),
    ...(values.kmeans_iterations ? { kmeansIterations: Number(values.kmeans_iterations) } : {}),
  };
  const arg = JSON.stringify({ dist, options });
  const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', arg], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (run.status !== 0) throw new Error(`build of ${factory} failed:\n${run.stderr}`);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1));
  result.digest = await indexDigest(outputDir);
  await rm(outputDir, { recursive: true, force: true });
  return result;
}

function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)/i.exec(text);
  return Math.round(Number(m[1]) * 1024 ** ' KMG'.indexOf((m[2] || ' ').toUpperCase()));
}

/** CPU microseconds a vector for `fn` over `count` vectors (best of two runs). */
function perVector(count, fn) {
  let best = Infinity;
  for (let run = 0; run < 2; run++) {
    const started = now();
    fn();
    best = Math.min(best, since(started).cpu);
  }
  return (best * 1e6) / count;
}

/** Part 1: the add pass's parts on one chunk, one thread, in CPU microseconds a vector. */
async function parts(shards, factories, dim) {
  const load = (name) => import(join(current, name));
  const { readShard, listShards } = await load('formats/index.js');
  const { CentroidGraph } = await load('vector-index/centroid-graph.js');
  const { CentroidAssigner } = await load('vector-index/centroid-assigner.js');
  const { assign } = await load('vector-index/kmeans.js');
  const { trainPq, subspace, PQ_KSUB } = await load('vector-index/pq.js');
  const { residuals, encodeEntries } = await load('vector-index/ivf-encode.js');
  const { ListRunBuffer, mergeRuns } = await load('build/list-runs.js');
  const [first] = await listShards(shards);
  const started = now();
  const shard = await readShard(first);
  const read = (since(started).cpu * 1e6) / shard.count;
  const chunk = shard.features.subarray(0, CHUNK * dim);
  const rows = [{ part: 'read and parse a shard (.npy, ids)', us: read }];
  const lists = [...new Set(factories.map((f) => Number(/^IVF(\d+)/.exec(f)[1])))];
  let centroids;
  for (const nlist of lists) {
    const step = Math.floor(shard.count / nlist);
    centroids = Float32Array.from({ length: nlist * dim }, (_, i) => {
      const [row, d] = [Math.floor(i / dim), i % dim];
      return shard.features[row * step * dim + d];
    });
    const graph = new CentroidGraph(centroids, dim, 'ip', { m: 32, threads: 1 });
    rows.push({
      part: `assign, graph over ${nlist} centroids (_HNSW32)`,
      us: perVector(CHUNK, () => graph.assign(chunk)),
    });
    const exact = new CentroidAssigner(centroids, dim, 'ip', 1);
    rows.push({
      part: `assign, exact over ${nlist} centroids`,
      us: perVector(CHUNK, () => exact.assign(chunk)),
    });
    exact.close();
  }
  const m = Number(values.pq);
  const dsub = dim / m;
  const labels = assign(centroids, chunk, dim, 'ip', 1);
  const input = residuals(chunk, centroids, dim, 'ip', 1, labels);
  const pq = trainPq(input.subarray(0, 8192 * dim), dim, m, { seed: 1, iterations: 4, threads: 1 });
  // Before pq-encode.wat: the residuals in a chunk-sized array, then the Flat kernel per sub-space.
  const searched = () => {
    const residual = residuals(chunk, centroids, dim, 'ip', 1, labels);
    const codes = new Uint8Array(CHUNK * m);
    for (let j = 0; j < m; j++) {
      const book = pq.codebooks.subarray(j * PQ_KSUB * dsub, (j + 1) * PQ_KSUB * dsub);
      const sub = assign(book, subspace(residual, dim, dsub, j), dsub, 'l2', 1);
      for (let i = 0; i < CHUNK; i++) codes[i * m + j] = sub[i];
    }
    return codes;
  };
  const encoded = () => encodeEntries(chunk, labels, centroids, dim, 'ip', { pq });
  rows.push({
    part: `residuals and PQ${m} encoding, exhaustive search per sub-space (before)`,
    us: perVector(CHUNK, searched),
  });
  rows.push({
    part: `residuals and PQ${m} encoding, pq-encode.wat (after)`,
    us: perVector(CHUNK, encoded),
  });
  const codes = encoded();
  const same = Buffer.compare(codes, searched()) === 0;
  const ids = Int32Array.from({ length: CHUNK }, (_, i) => i);
  const scratch = await mkdtemp(join(tmpdir(), 'ivf-add-runs-'));
  const runPaths = [join(scratch, 'a'), join(scratch, 'b')];
  const nlist = centroids.length / dim;
  const spillStart = now();
  for (const path of runPaths) {
    const buffer = new ListRunBuffer(nlist, m, CHUNK);
    buffer.add(labels, ids, codes, 0, CHUNK);
    await buffer.spill(path);
  }
  rows.push({
    part: `spill to sorted runs (${nlist} lists)`,
    us: (since(spillStart).cpu * 1e6) / (2 * CHUNK),
  });
  const mergeStart = now();
  await mergeRuns(runPaths, nlist, m, { list: async () => {} }, 1 << 20);
  rows.push({ part: 'merge the runs', us: (since(mergeStart).cpu * 1e6) / (2 * CHUNK) });
  await rm(scratch, { recursive: true, force: true });
  return { rows, same };
}

async function printParts(corpus, factories, dim, n) {
  const { rows, same } = await parts(corpus, factories, dim);
  console.log(
    `\n${n} x ${dim}, one chunk of ${CHUNK} rows, one thread; CPU microseconds a vector, and CPU minutes at 8.8 M\n`,
  );
  console.log('| part of the add pass | CPU µs / vector | CPU min at 8.8 M |');
  console.log('| --- | ---: | ---: |');
  for (const { part, us } of rows)
    console.log(`| ${part} | ${us.toFixed(1)} | ${((us * 8.8e6) / 6e7).toFixed(1)} |`);
  console.log(`\nkernel codes = exhaustive search codes: ${same}`);
}

/** The builds' phases, a row as each build ends (the same phases for every IVF build). */
async function printBuilds(corpus, factories, scratch) {
  const dists = values.baseline
    ? [
        ['baseline', resolve(values.baseline)],
        ['current', current],
      ]
    : [['current', current]];
  const phases = ['read', 'sampling', 'train', 'add', 'lists'];
  const budget = values.memory_budget ? `, --memory_budget ${values.memory_budget}` : '';
  const iterations = values.kmeans_iterations
    ? `, --kmeans_iterations ${values.kmeans_iterations}`
    : '';
  console.log(
    `\nWhole builds: wall s (CPU s) per phase, --sampling_rate ${values.sampling_rate}, --threads ${values.threads}${budget}${iterations}\n`,
  );
  console.log(
    `| factory | dist | ${phases.join(' | ')} | total | peak RSS | runs | index sha256 |`,
  );
  console.log(`| --- | --- | ${phases.map(() => '---:').join(' | ')} | ---: | ---: | ---: | --- |`);
  const cell = (p) => (p ? `${p.wall.toFixed(1)} (${p.cpu.toFixed(1)})` : '-');
  for (const factory of factories)
    for (const [name, dist] of dists) {
      const b = await build(dist, factory, corpus, scratch);
      const cells = phases.map((phase) => cell(b.phases.find((p) => p.phase === phase)));
      const rss = `${(b.peakRss / 2 ** 30).toFixed(2)} GiB`;
      console.log(
        `| ${factory} | ${name} | ${cells.join(' | ')} | ${cell(b.total)} | ${rss} | ${b.runs} | ${b.digest} |`,
      );
    }
}

if (values.child) {
  await child(JSON.parse(values.child));
} else {
  const n = Number(values.n);
  const dim = Number(values.dim);
  const factories = values.factories.split(':');
  const scratch = values.dir ? resolve(values.dir) : await mkdtemp(join(tmpdir(), 'ivf-add-'));
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.error(`load average at start: ${load()}`);
  try {
    const { corpus } = await writeVectorCorpus({ dir: scratch, size: n, queries: 1, dim });
    if (!values.skip_parts) await printParts(corpus, factories, dim, n);
    if (!values.skip_builds) await printBuilds(corpus, factories, scratch);
  } finally {
    if (!values.keep) await rm(scratch, { recursive: true, force: true });
    console.error(`load average at the end: ${load()}`);
  }
}
