// PLAID's builder with exact centroid assignment against assignment through an HNSW graph over
// the centroids (`--centroid_graph M`, `--centroid_graph_ef EF`), side by side in one run, on
// the scale bench's ColBERT-like token corpus (bench/lib/scale/corpora/tokens.mjs): build time
// split into training (counting, sampling, k-means, buckets) and encoding, and the build's CPU
// seconds (all threads; wall time on a shared machine includes waits); agreement of each
// graph-built index's codes with the exact nearest of its own centroids; and retrieval: top-10
// overlap with the exact-built index over every query, and recall@10 against brute-force MaxSim
// over the original tokens on the first --brute_queries queries, at RoutIR's depths for k <= 10
// and k > 100.
//
//   npm run build && node bench/plaid-build.mjs [--passages 100000] [--partitions 4096]
//       [--nbits 2] [--graphs 32:16,32:32,32:64] [--queries 100] [--brute_queries 10]
//       [--agreement_tokens 200000] [--threads 1]
//
// --graphs lists M:efSearch pairs, one graph-built index each. The corpus (about 1.9 GB of
// float16 at 100,000 passages) and the indexes go to a temporary folder, one index at a time
// (each is measured, then deleted), and the folder is deleted at the end.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { QUERY_TOKENS, TOKEN_DIM, writeTokenCorpus } from './lib/scale/corpora/tokens.mjs';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    partitions: { type: 'string', default: '4096' },
    nbits: { type: 'string', default: '2' },
    graphs: { type: 'string', default: '32:16,32:32,32:64' },
    queries: { type: 'string', default: '100' },
    brute_queries: { type: 'string', default: '10' },
    agreement_tokens: { type: 'string', default: '200000' },
    threads: { type: 'string', default: '1' },
  },
});
const plaidx = await import('../packages/plaidx/dist/index.js');
const { assign } = await import('../packages/dense/dist/index.js');

const started = performance.now();
const clock = () => `${((performance.now() - started) / 60_000).toFixed(1)} min`;
const log = (line) => console.error(`[${clock()}] ${line}`);
const DEPTHS = [
  ['k <= 10', plaidx.depthFor(10)],
  ['k > 100', plaidx.depthFor(1000)],
];
const settings = [
  { label: 'exact' },
  ...values.graphs.split(',').map((pair) => {
    const [m, efSearch] = pair.split(':').map(Number);
    return { label: `graph M ${m}, ef ${efSearch}`, centroidGraph: { m, efSearch } };
  }),
];

/** The token shards' paths, in order. */
async function shardPaths(dir) {
  return (await readdir(dir))
    .filter((n) => n.endsWith('.npz'))
    .sort()
    .map((n) => join(dir, n));
}

async function readQueries(path) {
  const floats = new Float32Array((await readFile(path)).buffer.slice(0));
  const size = QUERY_TOKENS * TOKEN_DIM;
  return Array.from({ length: floats.length / size }, (_, q) => ({
    vectors: floats.subarray(q * size, (q + 1) * size),
    length: QUERY_TOKENS,
    dim: TOKEN_DIM,
  }));
}

/** The first `count` tokens of the corpus (from its first shards). */
async function firstTokens(source, count) {
  const out = new Float32Array(count * TOKEN_DIM);
  let filled = 0;
  for (let c = 0; c < source.count && filled < out.length; c++) {
    const { features } = await source.load(c);
    const take = Math.min(features.length, out.length - filled);
    out.set(features.subarray(0, take), filled);
    filled += take;
  }
  return out.subarray(0, filled);
}

/** The share of the index's first tokens coded with their exact nearest centroid. */
function agreement(index, tokens) {
  const n = tokens.length / index.dim;
  const codes = new Int32Array(n);
  for (let p = 0, row = 0; row < n; p++) {
    const passage = index.tokens.codes(p);
    codes.set(passage.subarray(0, Math.min(passage.length, n - row)), row);
    row += passage.length;
  }
  const exact = assign(index.centroids, tokens, index.dim, 'ip', Number(values.threads));
  return exact.filter((code, i) => code === codes[i]).length / n;
}

/** Builds one index, measures it, deletes it; resolves to its row. */
async function benchOne(setting, source, work, queries, tokens) {
  const outputDir = join(work, 'index');
  log(`building (${setting.label})`);
  const cpu = process.cpuUsage();
  const report = await plaidx.buildPlaidIndex({
    source,
    outputDir,
    nbits: Number(values.nbits),
    partitions: Number(values.partitions),
    threads: Number(values.threads),
    ...(setting.centroidGraph ? { centroidGraph: setting.centroidGraph } : {}),
    logger: { info: (line) => log(line) },
  });
  const { user, system } = process.cpuUsage(cpu);
  const cpuSeconds = (user + system) / 1e6;
  log(
    `built in ${report.seconds.toFixed(0)} s (${cpuSeconds.toFixed(0)} CPU s) (training ${report.trainingSeconds.toFixed(0)} s, encoding ${report.encodingSeconds.toFixed(0)} s)`,
  );
  try {
    const index = await plaidx.openPlaidIndex(outputDir);
    const agree = agreement(index, tokens);
    const top = DEPTHS.map(([, depth]) =>
      queries.map((q) => plaidx.plaidSearch(index, q, depth, 10).pids),
    );
    log(`agreement ${agree.toFixed(4)}`);
    return { ...setting, report, cpuSeconds, agree, top };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

/** Exact MaxSim top 10 of each query over the original tokens, a shard at a time. */
async function bruteForce(source, queries) {
  const tops = queries.map(() => []);
  const scratch = new Float64Array(2 * QUERY_TOKENS);
  let pid = 0;
  for (let c = 0; c < source.count; c++) {
    const shard = await source.load(c);
    queries.forEach((query, q) => {
      let row = 0;
      shard.doclens.forEach((length, p) => {
        const score = plaidx.maxSim(query, shard.features, row, length, scratch);
        tops[q].push([pid + p, score]);
        row += length;
      });
      tops[q] = tops[q].sort((a, b) => b[1] - a[1]).slice(0, 10);
    });
    pid += shard.doclens.length;
    log(`brute force: shard ${c + 1}/${source.count}`);
  }
  return tops.map((top) => top.map(([p]) => p));
}

const overlap = (a, b) => {
  let found = 0;
  a.forEach((top, q) => (found += top.filter((p) => b[q].includes(p)).length));
  return found / (10 * a.length);
};

const work = await mkdtemp(join(tmpdir(), 'plaid-build-bench-'));
// A stopped run deletes its corpus too.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () =>
    rm(work, { recursive: true, force: true }).then(() => process.exit(130)),
  );
try {
  const load = loadavg()[0];
  const corpus = await writeTokenCorpus({
    dir: work,
    size: Number(values.passages),
    queries: Number(values.queries),
  });
  log(`corpus: ${corpus.passages} passages, ${corpus.tokens} tokens`);
  const source = plaidx.fileShards(await shardPaths(corpus.corpus));
  const queries = await readQueries(corpus.queries);
  const tokens = await firstTokens(source, Number(values.agreement_tokens));
  const rows = [];
  for (const setting of settings) rows.push(await benchOne(setting, source, work, queries, tokens));
  const truth = await bruteForce(source, queries.slice(0, Number(values.brute_queries)));
  const exact = rows[0];
  console.log(
    `\n${corpus.passages.toLocaleString('en')} passages, ${corpus.tokens.toLocaleString('en')} tokens of dim ${TOKEN_DIM}, ${values.partitions} centroids, nbits ${values.nbits}, ${values.threads} thread(s); ${queries.length} queries (recall on ${truth.length}); load average ${load.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end\n`,
  );
  console.log(
    '| assignment | training | encoding | build | build CPU | speed-up (CPU) | codes agreeing with exact | ' +
      DEPTHS.map(([d]) => `top-10 overlap with exact-built (${d}) | recall@10 (${d})`).join(' | ') +
      ' |',
  );
  console.log(`|${' --- |'.repeat(7 + 2 * DEPTHS.length)}`);
  for (const row of rows) {
    const { report } = row;
    const cells = DEPTHS.map((_, d) => {
      const recall = overlap(row.top[d].slice(0, truth.length), truth);
      return `${overlap(row.top[d], exact.top[d]).toFixed(3)} | ${recall.toFixed(3)}`;
    });
    console.log(
      `| ${row.label} | ${report.trainingSeconds.toFixed(0)} s | ${report.encodingSeconds.toFixed(0)} s | ${report.seconds.toFixed(0)} s | ${row.cpuSeconds.toFixed(0)} s | ${(exact.cpuSeconds / row.cpuSeconds).toFixed(2)}x | ${row.agree.toFixed(3)} | ${cells.join(' | ')} |`,
    );
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
