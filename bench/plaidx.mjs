// PLAID late-interaction search against exact brute-force MaxSim, in the same run, on a
// synthetic clustered token-embedding corpus: build time, index size, load time and RSS (in a
// child process), queries/s and recall@10 at RoutIR's three depth settings and a generous
// one, and the time each search stage takes.
//
//   npm run build && node bench/plaidx.mjs [--passages 10000] [--tokens 60] [--dim 128]
//       [--queries 20] [--qlen 32] [--nbits 2[,4]] [--partitions 1024] [--types N]
//       [--sample_passages 2000] [--brute_queries N] [--keep DIR]
//   node bench/plaidx.mjs --full      # 100,000 passages (about 3 GB of float32 tokens),
//                                     # 4,096 centroids and types, 8,000 sampled passages
//
// Corpus (seeded): token "types" (random unit vectors, as many as centroids unless --types);
// each passage has a topic (32 related types), half its tokens are types of that topic and
// half any type, each a type plus noise of norm about 0.35 (cosine about 0.94), so tokens sit
// near centroids as ColBERT's do. A query paraphrases one passage: 32 noisy copies of its
// tokens. Brute force is exact MaxSim over the float32 tokens with the blocked kernel PLAID's
// exact stage uses; ground truth for recall is its top 10 (on the first --brute_queries
// queries; all by default). `--nbits 2,4` builds one index per width over the same corpus.
// `--keep DIR` keeps the indexes and the ground truth there: a later run with the same
// parameters reuses them (build figures from when they were built) and re-times brute force
// on --brute_queries queries (default 3), checking they agree with the kept ones.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
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
    brute_queries: { type: 'string' },
    keep: { type: 'string' },
  },
});
const passages = values.full ? 100_000 : Number(values.passages);
const partitions = values.full && values.partitions === '1024' ? 4096 : Number(values.partitions);
const samplePassages =
  values.full && values.sample_passages === '2000' ? 8000 : Number(values.sample_passages);
const dim = Number(values.dim);
const meanTokens = Number(values.tokens);
const qlen = Number(values.qlen);
// One or several residual widths (`--nbits 2,4`): each gets its index, on the same corpus
// and against the same brute force.
const nbitsList = values.nbits.split(',').map(Number);
// As many token types as centroids: each centroid then stands for about one type, as ColBERT's
// 2^14-2^18 centroids do for real vocabularies in context.
const typeTotal = Number(values.types ?? partitions);

const plaidx = await import('../packages/plaidx/dist/index.js');
const { seededRandom } = await import('../packages/dense/dist/index.js');

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

/**
 * Exact MaxSim of every passage over the float32 tokens, with the blocked kernel PLAID's own
 * exact stage uses (four query tokens per pass over a document token); the top 10 passages.
 */
function bruteForce(shards, query) {
  const top = new Array(10).fill([-1, -Infinity]);
  const scratch = new Float64Array(2 * query.length);
  let pid = 0;
  for (const shard of shards) {
    let row = 0;
    for (const length of shard.doclens) {
      const score = plaidx.maxSim(query, shard.features, row, length, scratch);
      if (score > top[9][1]) {
        top[9] = [pid, score];
        top.sort((a, b) => b[1] - a[1]);
      }
      row += length;
      pid++;
    }
  }
  return top.map(([p]) => p);
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
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (line) => console.error(line);

/** The run's parameters: a kept index or ground truth is reused only for identical ones. */
const fingerprint = JSON.stringify({
  passages,
  partitions,
  samplePassages,
  dim,
  meanTokens,
  qlen,
  typeTotal,
  queries: values.queries,
});

/** Builds the index, or reuses the one `--keep DIR` kept from an identical earlier run. */
async function buildOrReuse(shards, indexDir, nbits) {
  const reportFile = `${indexDir}.build.json`;
  const kept = JSON.parse((await readFile(reportFile, 'utf8').catch(() => 'null')) ?? 'null');
  if (kept?.fingerprint === fingerprint) {
    log(`reusing the index kept in ${indexDir} (build figures from when it was built)`);
    return kept.build;
  }
  await rm(indexDir, { recursive: true, force: true });
  const build = await plaidx.buildPlaidIndex({
    source: plaidx.memoryShards(shards),
    outputDir: indexDir,
    nbits,
    partitions,
    samplePassages,
    interactive: process.stderr.isTTY,
    logger: { info: log },
  });
  await writeFile(reportFile, JSON.stringify({ fingerprint, build }));
  return build;
}

/**
 * Exact top 10 of the first `count` queries, timed, with a progress line per query. With
 * `--keep`, the top 10s are saved; a later identical run re-times brute force on the first
 * `--brute_queries` queries only, checks they agree with the saved ones, and reuses the rest.
 */
async function groundTruth(shards, count, work) {
  const file = join(work, 'truth.json');
  const saved = JSON.parse((await readFile(file, 'utf8').catch(() => 'null')) ?? 'null');
  const reuse = saved?.fingerprint === fingerprint ? saved.truth : undefined;
  const timed = reuse ? Math.min(count, Number(values.brute_queries ?? 3)) : count;
  const truth = [];
  const started = performance.now();
  for (let q = 0; q < timed; q++) {
    truth.push(bruteForce(shards, queries[q]));
    const elapsed = performance.now() - started;
    log(
      `brute force: ${q + 1}/${timed} queries, ${seconds(elapsed)}, eta ${seconds((elapsed / (q + 1)) * (timed - q - 1))}`,
    );
  }
  const ms = performance.now() - started;
  if (reuse) {
    if (truth.some((top, q) => top.join() !== reuse[q].join()))
      throw new Error(`${file} disagrees with this run's brute force`);
    log(`ground truth of queries ${timed + 1}..${reuse.length} reused from ${file}`);
    return { truth: reuse, ms, timed };
  }
  await writeFile(file, JSON.stringify({ fingerprint, truth }));
  return { truth, ms, timed };
}

/** One depth setting: queries/s over every query, recall@10 over those with ground truth. */
function measure(index, depth, truth) {
  plaidx.plaidSearch(index, queries[0], depth, 10); // warm-up
  const stats = plaidx.emptyStats();
  const started = performance.now();
  const hits = queries.map((q) => plaidx.plaidSearch(index, q, depth, 10, undefined, stats));
  const ms = performance.now() - started;
  let found = 0;
  truth.forEach((top, i) => (found += hits[i].pids.filter((p) => top.includes(p)).length));
  return { qps: (queries.length * 1000) / ms, recall: found / (10 * truth.length), stats };
}

const SETTINGS = [
  ['RoutIR k <= 10', plaidx.depthFor(10)],
  ['RoutIR k <= 100', plaidx.depthFor(100)],
  ['RoutIR k > 100', plaidx.depthFor(1000)],
  ['generous', { ncells: 8, centroid_score_threshold: 0.3, ndocs: 8192 }],
];

/** Builds (or reuses) the index of one residual width and prints its tables. */
async function benchNbits(shards, work, nbits, truth, bruteQps) {
  const indexDir = join(work, `index-nbits${nbits}`);
  const build = await buildOrReuse(shards, indexDir, nbits);
  const load = loadInChild(indexDir);
  const index = await plaidx.openPlaidIndex(indexDir);
  const rows = SETTINGS.map(([label, depth]) => ({
    label,
    depth,
    ...measure(index, depth, truth),
  }));
  console.log(`\n**nbits ${nbits}**, ${build.partitions} centroids\n`);
  console.log(`| build | index on disk | load | RSS after load |`);
  console.log(`| --- | --- | --- | --- |`);
  console.log(
    `| ${build.seconds.toFixed(1)} s | ${mib(await dirBytes(indexDir))} (float32 tokens: ${mib(tokens * dim * 4)}) | ${(load.ms / 1000).toFixed(2)} s | ${mib(load.rss)} (${mib(load.rss - load.base)} for the index) |\n`,
  );
  console.log(`| search | queries/s | ms/query | recall@10 vs exact | vs brute force |`);
  console.log(`| --- | --- | --- | --- | --- |`);
  for (const { label, depth, qps, recall } of rows)
    console.log(
      `| PLAID, ${label} (ncells ${depth.ncells}, threshold ${depth.centroid_score_threshold}, ndocs ${depth.ndocs}) | ${qps.toFixed(1)} | ${(1000 / qps).toFixed(1)} | ${recall.toFixed(3)} | ${(qps / bruteQps).toFixed(0)}x |`,
    );
  console.log(
    `| exact brute-force MaxSim (float32) | ${bruteQps.toFixed(3)} | ${(1000 / bruteQps).toFixed(0)} | 1.000 | 1x |\n`,
  );
  console.log(
    `| stage profile, ms/query | centroid scores | candidates | stages 2-3 | stage 4 (exact) | candidates / pruned / finalists |`,
  );
  console.log(`| --- | --- | --- | --- | --- | --- |`);
  for (const { label, stats } of rows) {
    const per = (x) => (x / stats.searches).toFixed(1);
    console.log(
      `| ${label} | ${per(stats.ms.centroids)} | ${per(stats.ms.candidates)} | ${per(stats.ms.filter)} | ${per(stats.ms.exact)} | ${(stats.candidates / stats.searches).toFixed(0)} / ${(stats.pruned / stats.searches).toFixed(0)} / ${(stats.finalists / stats.searches).toFixed(0)} |`,
    );
  }
}

const t0 = performance.now();
const { shards, queries } = corpus();
const tokens = shards.reduce((n, s) => n + s.features.length / dim, 0);
log(
  `corpus: ${passages} passages, ${tokens} tokens of dim ${dim} (${mib(tokens * dim * 4)} float32) in ${seconds(performance.now() - t0)}`,
);
const bruteCount = Math.min(queries.length, Number(values.brute_queries ?? queries.length));

const work = values.keep ?? (await mkdtemp(join(tmpdir(), 'plaid-bench-')));
await mkdir(work, { recursive: true });
try {
  const { truth, ms: bruteMs, timed } = await groundTruth(shards, bruteCount, work);
  const bruteQps = (timed * 1000) / bruteMs;
  console.log(
    `\n${passages.toLocaleString('en')} passages, ${tokens.toLocaleString('en')} tokens, dim ${dim}, ${queries.length} queries of ${qlen} tokens (recall on ${truth.length}, brute force timed on ${timed}), 1 thread, load average ${loadavg()[0].toFixed(1)} at the start`,
  );
  for (const nbits of nbitsList) await benchNbits(shards, work, nbits, truth, bruteQps);
} finally {
  if (!values.keep) await rm(work, { recursive: true, force: true });
}
