// PLAID late-interaction search against exact brute-force MaxSim, in the same run, on a
// synthetic clustered token-embedding corpus: build time, index size, load time and RSS (in a
// child process), queries/s and recall@10 at RoutIR's three depth settings.
//
//   npm run build && node bench/plaidx.mjs [--passages 10000] [--tokens 60] [--dim 128]
//       [--queries 20] [--qlen 32] [--nbits 2] [--partitions 1024] [--sample_passages 2000]
//   node bench/plaidx.mjs --full      # 100,000 passages (about 3 GB of float32 tokens)
//
// Corpus (seeded): token "types" (random unit vectors, as many as centroids unless --types);
// each passage has a topic (32 related types), half
// its tokens are types of that topic and half any type, each a type plus noise of norm about
// 0.35 (cosine about 0.94), so tokens sit near centroids as ColBERT's do. A query paraphrases
// one passage: 32 noisy copies of its tokens. Brute force is exact MaxSim over the float32
// tokens with the same dot kernel PLAID uses; ground truth for recall is its top 10.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '10000' },
    tokens: { type: 'string', default: '60' },
    dim: { type: 'string', default: '128' },
    queries: { type: 'string', default: '20' },
    qlen: { type: 'string', default: '32' },
    nbits: { type: 'string', default: '2' },
    partitions: { type: 'string', default: '1024' },
    sample_passages: { type: 'string', default: '2000' },
    full: { type: 'boolean', default: false },
    types: { type: 'string' },
  },
});
const passages = values.full ? 100_000 : Number(values.passages);
const partitions = values.full && values.partitions === '1024' ? 4096 : Number(values.partitions);
const samplePassages =
  values.full && values.sample_passages === '2000' ? 8000 : Number(values.sample_passages);
const dim = Number(values.dim);
const meanTokens = Number(values.tokens);
const qlen = Number(values.qlen);
const nbits = Number(values.nbits);
// As many token types as centroids: each centroid then stands for about one type, as ColBERT's
// 2^14-2^18 centroids do for real vocabularies in context.
const typeTotal = Number(values.types ?? partitions);

const plaidx = await import('../packages/plaidx/dist/index.js');
const { seededRandom, dot } = await import('../packages/dense/dist/index.js');

function gaussian(random) {
  return Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
}

function unit(out, offset, base, baseOffset, noise, random) {
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    const v = (base ? base[baseOffset + j] : 0) + noise * gaussian(random);
    out[offset + j] = v;
    norm += v * v;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let j = 0; j < dim; j++) out[offset + j] *= scale;
}

function corpus() {
  const random = seededRandom(19);
  const typeCount = typeTotal;
  const types = new Float32Array(typeCount * dim);
  for (let t = 0; t < typeCount; t++) unit(types, t * dim, undefined, 0, 1, random);
  const noise = 0.35 / Math.sqrt(dim);
  const perShard = 10_000;
  const shards = [];
  for (let start = 0; start < passages; start += perShard) {
    const count = Math.min(perShard, passages - start);
    const doclens = Int32Array.from({ length: count }, () =>
      Math.max(8, Math.round(meanTokens + 20 * (random() - 0.5))),
    );
    const features = new Float32Array(doclens.reduce((a, b) => a + b, 0) * dim);
    let row = 0;
    for (const length of doclens) {
      const topic = Math.floor(random() * Math.max(1, typeCount / 8));
      for (let i = 0; i < length; i++, row++) {
        const type =
          random() < 0.5
            ? (topic * 8 + Math.floor(random() * 32)) % typeCount
            : Math.floor(random() * typeCount);
        unit(features, row * dim, types, type * dim, noise, random);
      }
    }
    shards.push({
      features,
      dim,
      doclens,
      ids: Array.from({ length: count }, (_, i) => `p${start + i}`),
    });
  }
  const queries = [];
  for (let q = 0; q < Number(values.queries); q++) {
    const shard = shards[Math.floor(random() * shards.length)];
    const p = Math.floor(random() * shard.doclens.length);
    let first = 0;
    for (let i = 0; i < p; i++) first += shard.doclens[i];
    const vectors = new Float32Array(qlen * dim);
    for (let t = 0; t < qlen; t++)
      unit(vectors, t * dim, shard.features, (first + (t % shard.doclens[p])) * dim, noise, random);
    queries.push({ vectors, length: qlen, dim });
  }
  return { shards, queries };
}

/** Exact MaxSim of every passage; the top 10 passage numbers. */
function bruteForce(shards, query) {
  const top = [];
  let pid = 0;
  const best = new Float32Array(qlen);
  for (const shard of shards) {
    let row = 0;
    for (const length of shard.doclens) {
      best.fill(-Infinity);
      for (let e = row; e < row + length; e++) {
        for (let t = 0; t < qlen; t++) {
          const s = dot(query.vectors, t * dim, shard.features, e * dim, dim);
          if (s > best[t]) best[t] = s;
        }
      }
      let score = 0;
      for (let t = 0; t < qlen; t++) score += best[t];
      top.push([pid++, score]);
      if (top.length > 64) top.sort((a, b) => b[1] - a[1]).length = 10;
      row += length;
    }
  }
  return top
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([p]) => p);
}

async function dirBytes(dir) {
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
  return bytes;
}

function loadInChild(dir) {
  const script = `
    const { openPlaidIndex } = await import(${JSON.stringify(new URL('../packages/plaidx/dist/index.js', import.meta.url).href)});
    const before = process.memoryUsage().rss;
    const t = performance.now();
    const index = await openPlaidIndex(${JSON.stringify(dir)});
    const ms = performance.now() - t;
    console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss, base: before, passages: index.numPassages }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const t0 = performance.now();
const { shards, queries } = corpus();
const tokens = shards.reduce((n, s) => n + s.features.length / dim, 0);
console.error(
  `corpus: ${passages} passages, ${tokens} tokens of dim ${dim} (${mib(tokens * dim * 4)} float32) in ${((performance.now() - t0) / 1000).toFixed(1)}s`,
);

const work = await mkdtemp(join(tmpdir(), 'plaid-bench-'));
try {
  const indexDir = join(work, 'index');
  const build = await plaidx.buildPlaidIndex({
    source: plaidx.memoryShards(shards),
    outputDir: indexDir,
    nbits,
    partitions,
    samplePassages,
    interactive: process.stderr.isTTY,
    logger: { info: (line) => console.error(line) },
  });
  const load = loadInChild(indexDir);
  const index = await plaidx.openPlaidIndex(indexDir);

  let started = performance.now();
  const truth = queries.map((q) => bruteForce(shards, q));
  const bruteSeconds = (performance.now() - started) / 1000;
  const bruteQps = queries.length / bruteSeconds;

  const rows = [];
  for (const [label, k] of [
    ['k <= 10', 10],
    ['k <= 100', 100],
    ['k > 100', 1000],
  ]) {
    const depth = plaidx.depthFor(k);
    plaidx.plaidSearch(index, queries[0], depth, 10); // warm-up
    let found = 0;
    started = performance.now();
    const hits = queries.map((q) => plaidx.plaidSearch(index, q, depth, 10));
    const seconds = (performance.now() - started) / 1000;
    hits.forEach((h, i) => (found += h.pids.filter((p) => truth[i].includes(p)).length));
    const qps = queries.length / seconds;
    rows.push([
      `PLAID, RoutIR ${label} (ncells ${depth.ncells}, threshold ${depth.centroid_score_threshold}, ndocs ${depth.ndocs})`,
      qps.toFixed(1),
      `${(1000 / qps).toFixed(1)}`,
      (found / (10 * queries.length)).toFixed(3),
      `${(qps / bruteQps).toFixed(0)}x`,
    ]);
  }
  rows.push([
    'exact brute-force MaxSim (float32)',
    bruteQps.toFixed(2),
    `${(1000 / bruteQps).toFixed(0)}`,
    '1.000',
    '1x',
  ]);

  console.log(
    `\n${passages.toLocaleString('en')} passages, ${tokens.toLocaleString('en')} tokens, dim ${dim}, nbits ${nbits}, ${build.partitions} centroids, ${queries.length} queries of ${qlen} tokens, 1 thread\n`,
  );
  console.log(`| build | index on disk | load | RSS after load |`);
  console.log(`| --- | --- | --- | --- |`);
  console.log(
    `| ${build.seconds.toFixed(1)} s | ${mib(await dirBytes(indexDir))} (float32 tokens: ${mib(tokens * dim * 4)}) | ${(load.ms / 1000).toFixed(2)} s | ${mib(load.rss)} (${mib(load.rss - load.base)} for the index) |\n`,
  );
  console.log(`| search | queries/s | ms/query | recall@10 vs exact | vs brute force |`);
  console.log(`| --- | --- | --- | --- | --- |`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
} finally {
  await rm(work, { recursive: true, force: true });
}
