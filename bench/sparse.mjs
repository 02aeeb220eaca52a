// Learned sparse retrieval: @irserve/sparse's index over a synthetic SPLADE-like corpus. Build
// time (from a JSONL encoded corpus, as users have one, passage clustering included), size on
// disk, reopen time (until the index serves from its files; until all of it is in memory with
// every file's crc32 checked), RSS, and queries/s at top 10 and top 1000 for exhaustive
// term-at-a-time scoring (from memory, and from the files as while loading), block-max pruning,
// MaxScore and the impact-ordered search, run side by side on the same queries (wall and CPU time, and the work
// counters), with a check that every strategy returns identical passages and scores for every
// query. The index is built with the impact-ordered lists (`--impact_ordered`, which the
// impact-ordered search needs), so sizes and times compare with those in bench/README.md.
//
//   npm run build && node bench/sparse.mjs [--n 100000] [--queries 200] [--vocab 30000]
//       [--terms 120] [--block_size 32] [--quantization 50] [--threads 1] [--seed 1]
//       [--corpus topical|iid] [--topics N] [--reorder] [--in_memory] [--repeat 3]
//       [--ks 10,1000] [--only bmp,auto] [--bmp_block 4] [--bmp_dense 0.0625]
//       [--save DIR | --load DIR]
//   node --max-old-space-size=12000 bench/sparse.mjs --big   (1,000,000 passages)
//
// The corpus follows published SPLADE statistics: about 120 non-zero terms per passage and
// 25-40 per query over a Zipfian vocabulary of 30k tokens; frequent tokens weigh less than rare
// ones (SPLADE's learned IDF), weights are log-normal around that and capped at 3.5. Passages
// are about topics, as real ones are (`--corpus topical`, the default): each passage draws 40%
// of its terms from its topic's 200 mid- and low-frequency tokens, the rest from the whole
// vocabulary; topics are assigned at random, so the corpus comes in no useful order and any
// grouping is the builder's. `--corpus iid` draws every term from the whole vocabulary (no
// passage resembles another: the worst case for any pruning). Half the terms of a query come
// from one random passage (so it has relevant passages, as real queries do), half from the
// vocabulary's distribution.
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seeded } from './lib/random.mjs';
import { spladeCorpus } from './lib/splade-corpus.mjs';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    big: { type: 'boolean', default: false },
    queries: { type: 'string', default: '200' },
    vocab: { type: 'string', default: '30000' },
    terms: { type: 'string', default: '120' },
    block_size: { type: 'string', default: '32' },
    quantization: { type: 'string', default: '50' },
    threads: { type: 'string', default: '1' },
    corpus: { type: 'string', default: 'topical' },
    topics: { type: 'string' },
    reorder: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '3' },
    in_memory: { type: 'boolean', default: false },
    save: { type: 'string' },
    load: { type: 'string' },
    ks: { type: 'string', default: '10,1000' },
    only: { type: 'string' },
    bmp_block: { type: 'string', default: '4' },
    bmp_dense: { type: 'string', default: String(1 / 16) },
  },
});
const N = values.big ? 1_000_000 : Number(values.n);
const QUERIES = Number(values.queries);
const REPEAT = Math.max(1, Number(values.repeat));
const VOCAB = Number(values.vocab);
const TERMS = Number(values.terms);
const TOPICAL = values.corpus !== 'iid';
const TOPICS = Number(values.topics ?? Math.max(1, Math.round(N / 250)));

const dist = new URL('../packages/sparse/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const { buildSparseIndex } = await load('build/build-index.js');
const { SparseIndexBuilder } = await load('index/index-builder.js');
const { DEFAULT_REORDER } = await load('index/reorder.js');
const { writeIndex } = await load('index/write-index.js');
const { startOpeningSparseIndex } = await load('index/open-index.js');
const { FilePostings } = await load('index/file-postings.js');
const { fileExhaustiveSearch, fileSearchScratch } = await load('search/file-exhaustive.js');
const { blockMaxSearch, blockMaxScratch } = await load('search/block-max.js');
const { bmpSearch, bmpScratch } = await load('search/bmp/bmp-search.js');
const { exhaustiveSearch, exhaustiveScratch } = await load('search/exhaustive.js');
const { maxScoreSearch, maxScoreScratch } = await load('search/max-score.js');
const { impactOrderedSearch, impactOrderedScratch } = await load('search/impact-ordered.js');
const { queryTerms } = await load('search/query-terms.js');
const { boundSearch } = await load('engine/strategies.js');

const random = seeded(Number(values.seed));
const corpusModel = spladeCorpus({
  random,
  vocab: VOCAB,
  terms: TERMS,
  topics: TOPICAL ? TOPICS : 0,
});
const passageVector = () => corpusModel.passageVector();

async function writeCorpus(path) {
  const file = await open(path, 'w');
  const keep = new Map(); // passages the queries draw terms from
  const wanted = new Set(Array.from({ length: QUERIES }, () => Math.floor(random() * N)));
  let buffer = [];
  for (let i = 0; i < N; i++) {
    const vector = passageVector();
    if (wanted.has(i)) keep.set(i, vector);
    buffer.push(JSON.stringify({ id: `doc${Math.floor(i / 3)}::${i % 3}`, vector }));
    if (buffer.length === 5000) {
      await file.write(buffer.join('\n') + '\n');
      buffer = [];
    }
  }
  await file.write(buffer.join('\n') + '\n');
  await file.close();
  return [...keep.values()];
}

function queryVectors(sources) {
  return Array.from({ length: QUERIES }, (_, q) =>
    corpusModel.queryVector(sources[q % sources.length]),
  );
}

/**
 * Wall time and this thread's CPU time (less disturbed by other processes on a shared machine)
 * of the fastest of `--repeat` passes over the queries, after a warm-up pass over 20 of them
 * (so every kernel is compiled and every strategy starts from the same state).
 */
function timeQueries(run, queries) {
  queries.slice(0, 20).forEach(run);
  let best;
  for (let pass = 0; pass < REPEAT; pass++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const results = queries.map(run);
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const timed = {
      results,
      qps: queries.length / seconds,
      ms: (seconds * 1000) / queries.length,
      cpuMs: (user + system) / 1000 / queries.length,
    };
    if (!best || timed.cpuMs < best.cpuMs) best = timed;
  }
  return best;
}

const same = (a, b) =>
  a.ids.length === b.ids.length &&
  a.ids.every((id, i) => id === b.ids[i] && a.scores[i] === b.scores[i]);

/** The CLI's path: a JSONL encoded corpus on disk, parsed and indexed by buildSparseIndex. */
async function buildFromJsonl(dir) {
  console.error(`writing a synthetic corpus of ${N} passages...`);
  const sources = await writeCorpus(join(dir, 'corpus.jsonl'));
  const logger = { info: () => {}, warn: (line) => console.error(line) };
  console.error('building the index...');
  const build = await buildSparseIndex({
    input: join(dir, 'corpus.jsonl'),
    outputDir: join(dir, 'index'),
    quantization: Number(values.quantization),
    blockSize: Number(values.block_size),
    reorder: values.reorder,
    impactOrdered: true,
    threads: Number(values.threads),
    logger,
  });
  return { ...build, sources, from: 'JSONL' };
}

/** `--in_memory`: passages go straight to the index builder (no JSON written or parsed). */
async function buildInMemory(dir) {
  console.error(`indexing a synthetic corpus of ${N} passages in memory...`);
  const started = performance.now();
  const quantization = Number(values.quantization);
  const builder = new SparseIndexBuilder({
    quantization,
    blockSize: Number(values.block_size),
    passageIds: 'auto',
    reorder: values.reorder ? DEFAULT_REORDER : false,
    impactOrdered: true,
  });
  const wanted = new Set(Array.from({ length: QUERIES }, () => Math.floor(random() * N)));
  const sources = [];
  for (let i = 0; i < N; i++) {
    const vector = passageVector();
    if (wanted.has(i)) sources.push(vector);
    const tokens = Object.keys(vector).filter((t) => Math.trunc(vector[t] * quantization) > 0);
    const impacts = tokens.map((t) => Math.trunc(vector[t] * quantization));
    builder.add({ id: `doc${Math.floor(i / 3)}::${i % 3}`, tokens, impacts });
  }
  const manifest = await writeIndex(builder.finish(), join(dir, 'index'), { passageIds: 'auto' });
  return {
    manifest,
    sources,
    from: 'memory',
    seconds: (performance.now() - started) / 1000,
    reorderSeconds: builder.reorderSeconds,
    threads: 1,
    indexBytes: Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const saved = values.save ?? values.load;
const dir = saved ?? (await mkdtemp(join(tmpdir(), 'irserve-bench-sparse-')));
const loadAtStart = `at the start ${loadavg()
  .map((x) => x.toFixed(1))
  .join(' ')}`;

const corpus = TOPICAL ? `topical corpus (${TOPICS} topics)` : 'iid corpus';

/** The index and queries: built now (and kept in `--save DIR`), or those `--load DIR` kept. */
async function prepare() {
  if (values.load) {
    const kept = JSON.parse(await readFile(join(dir, 'bench.json'), 'utf8'));
    return { build: kept.build, queries: kept.queries.slice(0, QUERIES), corpus: kept.corpus };
  }
  if (saved) await mkdir(dir, { recursive: true });
  const build = values.in_memory ? await buildInMemory(dir) : await buildFromJsonl(dir);
  const queries = queryVectors(build.sources);
  if (saved) {
    const kept = { ...build, sources: undefined };
    await writeFile(join(dir, 'bench.json'), JSON.stringify({ build: kept, queries, corpus }));
  }
  return { build, queries, corpus };
}

try {
  const { build, queries, corpus } = await prepare();
  const opening = performance.now();
  // As the engine opens it (prepare: background): serving once the head is read (offsets,
  // passage-to-document map, terms, document ids) and every size checked; the rest loads a
  // slice at a time after that, each file checked against its CRC-32 as it is read.
  const started = await startOpeningSparseIndex(join(dir, 'index'));
  const serveSeconds = (performance.now() - opening) / 1000;
  const rssAtServe = process.memoryUsage().rss;
  const index = await started.loaded;
  const loadSeconds = (performance.now() - opening) / 1000;
  const { manifest, head } = started;
  const postings = new FilePostings(join(dir, 'index'), manifest, head.invertedOffsets);
  const bmpStarted = performance.now();
  const bmp = bmpScratch(index, {
    blockSize: Number(values.bmp_block),
    denseShare: Number(values.bmp_dense),
  });
  const bmpSeconds = (performance.now() - bmpStarted) / 1000;
  const lookup = new Map(index.terms.map((t, i) => [t, i]));
  const encoded = queries.map((q) => queryTerms(lookup, q, index.quantization));
  const strategies = [
    ['exhaustive (TAAT, default)', exhaustiveSearch, exhaustiveScratch(index)],
    [
      'exhaustive from the files (while loading)',
      (_index, query, options, scratch) => fileExhaustiveSearch(postings, query, options, scratch),
      fileSearchScratch(head),
    ],
    ['block-max (BMP)', blockMaxSearch, blockMaxScratch(index)],
    [
      `bmp (blocks of ${values.bmp_block}, SIMD bounds)`,
      (_index, query, options, scratch) => bmpSearch(query, options, scratch),
      bmp,
    ],
    ['MaxScore', maxScoreSearch, maxScoreScratch(index)],
    ['impact-ordered', impactOrderedSearch, impactOrderedScratch(index)],
    [
      'auto',
      (_index, query, options, search) => search(query, options),
      boundSearch(index, 'auto'),
    ],
  ].filter(
    ([name], i) =>
      i === 0 || !values.only || values.only.split(',').some((s) => name.startsWith(s)),
  );
  const rows = [];
  for (const k of values.ks.split(',').map(Number)) {
    console.error(`searching, top ${k}...`);
    const runs = strategies.map(([name, search, scratch]) => ({
      name,
      ...timeQueries((q) => search(index, q, { k }, scratch), encoded),
    }));
    const exhaustive = runs[0];
    const mean = (r, field) => r.results.reduce((s, x) => s + x[field], 0) / r.results.length;
    for (const run of runs) {
      const identical = run.results.filter((r, i) => same(r, exhaustive.results[i])).length;
      rows.push([
        k,
        run.name,
        run.qps,
        run.ms,
        run.cpuMs,
        mean(run, 'work'),
        mean(run, 'scored'),
        run === exhaustive ? '' : `${(exhaustive.cpuMs / run.cpuMs).toFixed(1)}x`,
        run === exhaustive ? '' : `${identical}/${queries.length}`,
      ]);
    }
  }
  console.log(
    `\n${manifest.passages} passages (${manifest.documents} documents), ${corpus}, ${manifest.postings} postings, ` +
      `${manifest.vocabularySize} terms, quantization ${manifest.quantization}, block size ${manifest.blockSize}, ` +
      `passages ${values.reorder ? 'clustered' : 'in corpus order'}, ${build.threads} build thread(s)`,
  );
  const listBytes = Object.entries(manifest.files)
    .filter(([name]) => name.startsWith('impact-ordered.'))
    .reduce((sum, [, file]) => sum + file.bytes, 0);
  console.log(
    `build from ${build.from} ${build.seconds.toFixed(1)} s (of which clustering ${build.reorderSeconds.toFixed(1)} s; peak RSS ${mib(build.peakRssBytes)}), ` +
      `index ${mib(build.indexBytes)} on disk (the impact-ordered lists ${mib(listBytes)} of it), reopen: serving from the files after ${serveSeconds.toFixed(2)} s (RSS ${mib(rssAtServe)}), ` +
      `all in memory with every file's crc32 checked after ${loadSeconds.toFixed(2)} s (RSS ${mib(process.memoryUsage().rss)})\n`,
  );
  const m = bmp.matrix;
  console.log(
    `bmp bounds derived in ${bmpSeconds.toFixed(2)} s: ${m.blocks} blocks of ${values.bmp_block}, ` +
      `${m.denseTerms} dense rows (terms in at least ${(Number(values.bmp_dense) * 100).toFixed(1)}% of the blocks, ${mib(m.kernel.rows.byteLength)}), ` +
      `${m.sparseBlocks.length.toLocaleString('en')} sparse entries (${mib(m.sparseBlocks.length * 5)})\n`,
  );
  const load = (at) =>
    `${at} ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`;
  console.log(`load average (1, 5, 15 min): ${loadAtStart}; ${load('at the end')}\n`);
  console.log(
    '| top k | search | queries/s | ms/query | CPU ms/query | work/query | passages scored/query | vs exhaustive (CPU) | identical results |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const count = (x) => Math.round(x).toLocaleString('en');
  for (const [k, name, qps, ms, cpuMs, work, scored, speedup, identical] of rows)
    console.log(
      `| ${k} | ${name} | ${qps.toFixed(1)} | ${ms.toFixed(2)} | ${cpuMs.toFixed(2)} | ${count(work)} | ${count(scored)} | ${speedup} | ${identical} |`,
    );
} finally {
  if (!saved) await rm(dir, { recursive: true, force: true });
}
