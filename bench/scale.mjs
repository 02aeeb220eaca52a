// Ten million passages on one machine: builds and serves every engine over synthetic corpora of
// realistic shape at each size, and prints, per size and engine/strategy: build time, build peak
// RSS, index size, start time, resident memory served, query p50/p99 and queries/s at top 10 and
// top 1000, and BM25's queries/s against Xapian's (same passages, analysis and queries).
//
//   npm run build && node bench/scale.mjs [--sizes 1m,3m,8.8m]
//       [--engines bm25,xapian,sparse,dense-768,dense-384,plaid]
//       [--work DIR] [--results FILE] [--queries 1000] [--ks 10,1000] [--keep] [--fresh]
//       [--strategies exhaustive,bmp,...] [--storages Flat,SQfp16,SQ8,IVF-PQ,IVF-HNSW-PQ,HNSW32]
//       [--memory_budget 2GiB] [--threads N] [--paged_only]
//
// Each engine runs in processes of its own (bench/lib/scale/engines/*.mjs), so every peak RSS is
// that engine's. Results are saved after each engine of each size (--results, default
// <work>/results.json): a run that stops resumes at the first size and engine without a result
// (--fresh starts over). Generated corpora and indexes go under --work (default
// $TMPDIR/irserve-scale) and are deleted once a size is done, unless --keep. Corpora: passages
// of text shaped like MS MARCO's (bench/lib/scale/corpora/text.mjs), SPLADE-like vectors
// (bench/lib/scale/corpora/sparse.mjs), clustered 768- and 384-d dense vectors (vectors.mjs)
// and ColBERT-like token matrices (tokens.mjs), written in each builder's pre-encoded input
// layout (no model runs: the bench measures the indexes). Dense builds one index per storage
// choice (--storages) and serves each from memory and paged under --memory_budget (256 MiB when
// not given); --memory_budget and --threads also go to the builders that take them. An engine is a module with { name, corpus, run(context) }
// returning its rows; add one to ENGINES (and its corpus to CORPORA) to measure it too.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeSparseCorpus } from './lib/scale/corpora/sparse.mjs';
import { writeTextCorpus } from './lib/scale/corpora/text.mjs';
import { writeTokenCorpus } from './lib/scale/corpora/tokens.mjs';
import { writeVectorCorpus } from './lib/scale/corpora/vectors.mjs';
import { bm25 } from './lib/scale/engines/bm25.mjs';
import { denseOf } from './lib/scale/engines/dense.mjs';
import { plaid } from './lib/scale/engines/plaid.mjs';
import { sparse } from './lib/scale/engines/sparse.mjs';
import { xapian } from './lib/scale/engines/xapian.mjs';
import { openResults, table, xapianRatios } from './lib/scale/results.mjs';

const ENGINES = {
  bm25,
  xapian,
  sparse,
  'dense-768': denseOf(768),
  'dense-384': denseOf(384),
  plaid,
};
const CORPORA = {
  text: writeTextCorpus,
  sparse: writeSparseCorpus,
  'vectors-768': (args) => writeVectorCorpus({ ...args, dim: 768 }),
  'vectors-384': (args) => writeVectorCorpus({ ...args, dim: 384 }),
  tokens: writeTokenCorpus,
};

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1m,3m,8.8m' },
    engines: { type: 'string', default: Object.keys(ENGINES).join(',') },
    work: { type: 'string', default: join(tmpdir(), 'irserve-scale') },
    results: { type: 'string' },
    queries: { type: 'string', default: '1000' },
    ks: { type: 'string', default: '10,1000' },
    strategies: { type: 'string' },
    storages: { type: 'string' },
    // The builds' --memory_budget, and the budget of the paged serving rows.
    memory_budget: { type: 'string' },
    threads: { type: 'string' },
    // Serve only under --memory_budget (indexes larger than the machine's RAM).
    paged_only: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
  },
});

/** `100k`, `1m`, `8.8m` or a plain number. */
function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`--sizes: cannot read ${JSON.stringify(text)} (e.g. 100k, 1m, 8.8m)`);
  const scale = { '': 1, k: 1e3, m: 1e6 }[match[2].toLowerCase()];
  return Math.round(Number(match[1]) * scale);
}

const sizes = values.sizes.split(',').map(parseSize);
const engines = values.engines.split(',').map((name) => {
  const engine = ENGINES[name];
  if (!engine) throw new Error(`--engines: no engine ${name} (${Object.keys(ENGINES).join(', ')})`);
  return engine;
});
const ks = values.ks.split(',').map(Number);
const options = {
  strategies: values.strategies?.split(','),
  denseStorages: values.storages?.split(','),
  memoryBudget: values.memory_budget,
  threads: values.threads,
  pagedOnly: values.paged_only,
  keep: values.keep,
};
if (values.paged_only && !values.memory_budget)
  throw new Error('--paged_only: give --memory_budget too (the budget the index is served under)');
const resultsPath = values.results ?? join(values.work, 'results.json');
await mkdir(values.work, { recursive: true });
if (values.fresh) await rm(resultsPath, { force: true });
const results = await openResults(resultsPath);
const log = (line) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The corpus of `kind` at `size` under `dir`, written unless a finished one is there. */
async function corpusOf(kind, size, dir) {
  const done = join(dir, `${kind}.done.json`);
  const finished = await readFile(done, 'utf8').then(JSON.parse, () => undefined);
  if (finished) return finished;
  log(`writing the ${kind} corpus of ${size.toLocaleString('en')} passages`);
  const started = performance.now();
  const written = await CORPORA[kind]({ dir, size, queries: Number(values.queries) });
  log(`${kind} corpus written in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await writeFile(done, JSON.stringify(written));
  return written;
}

for (const size of sizes) {
  const dir = join(values.work, String(size));
  const pending = engines.filter((engine) => !results.has(size, engine.name));
  if (pending.length === 0) continue;
  await mkdir(dir, { recursive: true });
  for (const engine of pending) {
    const corpus = await corpusOf(engine.corpus, size, dir);
    const work = join(dir, engine.name);
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true });
    log(`${engine.name} at ${size.toLocaleString('en')} passages`);
    const rows = await engine.run({ size, corpus, work, ks, log, options });
    await results.record(size, engine.name, rows);
    if (!values.keep) await rm(work, { recursive: true, force: true });
    console.log(
      table(results.rows.filter((row) => row.size === size && row.engine === engine.name)),
    );
  }
  if (!values.keep) await rm(dir, { recursive: true, force: true });
}

const load = loadavg()
  .map((x) => x.toFixed(2))
  .join(' ');
console.log(
  `\n${cpus().length} cores (${cpus()[0]?.model}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average at the end ${load}; ${ks.join(' and ')} results, ${values.queries} queries, one at a time\n`,
);
console.log(table(results.rows));
const ratios = xapianRatios(results.rows);
if (ratios) console.log(`\n${ratios}`);
