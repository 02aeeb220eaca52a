// BM25: irserve's embedded engine against the JavaScript full-text libraries people use for the
// same job, on the same data in the same run: effectiveness (nDCG@10, R@100 with trec_eval
// definitions), index build time, index size, peak memory and single-thread queries/s.
//
//   npm run build && node bench/bm25.mjs <data-dir> [--seconds 2] [--rounds 1] [--systems irserve,minisearch,...]
//
// Metrics use the top 100 of each system; queries/s (one thread, queries in sequence, timed for
// --seconds at each depth) is measured for the top 10 and the top 100.
//
// <data-dir> holds corpus.jsonl ({"id"|"_id", "title", "text"}), queries.jsonl and qrels.tsv
// (the layout of the collections under shared/data). Nothing of it is written to the repo:
// irserve's index and offset map go to a temp dir, deleted at the end. Each system runs in its
// own child process, so peak RSS belongs to that system (it includes the corpus where a
// library needs it in memory, and irserve's indexing worker thread).
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { bm25Over } from './lib/bm25-engine.mjs';
import { median, medianRun } from './lib/median.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
    systems: {
      type: 'string',
      default: 'irserve,wink-bm25-text-search,minisearch,orama,flexsearch',
    },
    role: { type: 'string' },
  },
});
const dist = new URL('../packages/irserve/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
/** Result depths: metrics use the deepest; queries/s is measured at each. */
const DEPTHS = [10, 100];
const K = Math.max(...DEPTHS);

function readData(dir) {
  const docs = readFileSync(join(dir, 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const doc = JSON.parse(line);
      return { id: String(doc.id ?? doc._id), title: doc.title ?? '', text: doc.text ?? '' };
    });
  return { docs };
}

/** Each system: build(docs, dir) -> { search(query) -> Promise<{id: score}>, sizeBytes }. */
const SYSTEMS = {
  async irserve(_docs, dir, dataDir) {
    const { pino } = await import('pino');
    const corpus = join(dataDir, 'corpus.jsonl');
    const first = JSON.parse(readFileSync(corpus, 'utf8').split('\n', 1)[0]);
    const idField = first.id !== undefined ? 'id' : '_id';
    const over = await bm25Over({ corpus, idField, dir, logger: pino({ level: 'silent' }) });
    const engine = over.open();
    await engine.start();
    const started = performance.now();
    const reloaded = over.open();
    await reloaded.start();
    const reloadMs = performance.now() - started;
    await engine.close();
    const { size } = await stat(join(dir, 'idx', 'index.bm25'));
    return {
      sizeBytes: size,
      extra: { reloadMs },
      search: async (query, k) => (await reloaded.searchBatch([{ query, limit: k }]))[0],
    };
  },

  async 'wink-bm25-text-search'(docs) {
    const { default: bm25 } = await import('wink-bm25-text-search');
    const { default: nlp } = await import('wink-nlp-utils');
    const engine = bm25();
    // The library's README setup: BM25F over the fields, its documented prep pipeline.
    engine.defineConfig({ fldWeights: { title: 1, body: 1 }, bm25Params: { k1: 0.9, b: 0.4 } });
    engine.definePrepTasks([
      nlp.string.lowerCase,
      nlp.string.removeExtraSpaces,
      nlp.string.tokenize0,
      nlp.tokens.propagateNegations,
      nlp.tokens.removeWords,
      nlp.tokens.stem,
    ]);
    docs.forEach((doc) => engine.addDoc({ title: doc.title, body: doc.text }, doc.id));
    engine.consolidate();
    return {
      sizeBytes: Buffer.byteLength(engine.exportJSON()),
      search: async (query, k) => Object.fromEntries(engine.search(query, k)),
    };
  },

  async minisearch(docs) {
    const { default: MiniSearch } = await import('minisearch');
    const index = new MiniSearch({ fields: ['title', 'text'], idField: 'id' });
    index.addAll(docs);
    return {
      sizeBytes: Buffer.byteLength(JSON.stringify(index)),
      search: async (query, k) =>
        Object.fromEntries(
          index
            .search(query)
            .slice(0, k)
            .map((hit) => [hit.id, hit.score]),
        ),
    };
  },

  async orama(docs) {
    const { create, insertMultiple, search, save } = await import('@orama/orama');
    const db = create({ schema: { id: 'string', title: 'string', text: 'string' } });
    await insertMultiple(db, docs, 1000);
    return {
      sizeBytes: Buffer.byteLength(JSON.stringify(save(db))),
      search: async (query, k) => {
        const result = await search(db, { term: query, properties: ['title', 'text'], limit: k });
        return Object.fromEntries(result.hits.map((hit) => [hit.id, hit.score]));
      },
    };
  },

  async flexsearch(docs) {
    const { Index } = await import('flexsearch');
    const { default: EnglishPreset } = await import('flexsearch/lang/en');
    // One field (title + text), the English preset; `suggest` so that multi-word queries return
    // documents matching some of the words (the default is all of them).
    const index = new Index({ encoder: EnglishPreset, resolution: 9 });
    docs.forEach((doc, i) => index.add(i, `${doc.title} ${doc.text}`));
    let bytes = 0;
    await index.export(
      (key, data) => (bytes += Buffer.byteLength(key) + Buffer.byteLength(data ?? '')),
    );
    return {
      sizeBytes: bytes,
      search: async (query, k) => {
        const ids = index.search(query, { limit: k, suggest: true });
        return Object.fromEntries(ids.map((i, rank) => [docs[i].id, ids.length - rank]));
      },
    };
  },
};

async function child(system, dataDir) {
  const { parseQrels, parseQueries } = await load('eval/files.js');
  const { evaluate } = await load('eval/metrics.js');
  const queries = parseQueries(readFileSync(join(dataDir, 'queries.jsonl'), 'utf8'));
  const qrels = parseQrels(readFileSync(join(dataDir, 'qrels.tsv'), 'utf8'));
  const judged = queries.filter((q) => qrels.has(q.id));
  const dir = await mkdtemp(join(tmpdir(), 'bench-bm25-'));
  try {
    const docs = system === 'irserve' ? [] : readData(dataDir).docs;
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const built = await SYSTEMS[system](docs, dir, dataDir);
    const buildMs = performance.now() - started;
    const run = new Map();
    for (const q of judged) run.set(q.id, await built.search(q.text, K));
    const { mean } = evaluate(run, qrels);
    const qps = {};
    for (const k of DEPTHS) {
      let count = 0;
      const t0 = performance.now();
      const budget = Number(values.seconds) * 1000;
      while (performance.now() - t0 < budget) {
        for (const q of judged) await built.search(q.text, k);
        count += judged.length;
      }
      qps[k] = count / ((performance.now() - t0) / 1000);
    }
    process.send({
      system,
      ndcg10: mean['nDCG@10'],
      r100: mean['R@100'],
      buildMs,
      sizeBytes: built.sizeBytes,
      peakRss: process.resourceUsage().maxRSS * 1024,
      rssBefore,
      qps,
      ...built.extra,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runChild(system, dataDir) {
  return new Promise((resolvePromise, reject) => {
    const proc = fork(new URL(import.meta.url).pathname, [
      dataDir,
      '--role',
      system,
      '--seconds',
      values.seconds,
    ]);
    let result;
    proc.on('message', (message) => (result = message));
    proc.on('exit', (code) =>
      code === 0 && result ? resolvePromise(result) : reject(new Error(`${system} exited ${code}`)),
    );
  });
}

const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** irserve's queries/s over each other system's, per depth: the median of the per-round ratios. */
function speedUps(runs) {
  const ours = runs.get('irserve');
  if (ours === undefined) return;
  for (const [system, theirs] of runs) {
    if (system === 'irserve') continue;
    const ratios = DEPTHS.map((k) =>
      median(ours.map((r, round) => r.qps[k] / theirs[round].qps[k])).toFixed(1),
    );
    console.log(
      `irserve / ${system}: ${ratios.map((x, i) => `${x}x (top ${DEPTHS[i]})`).join(', ')}`,
    );
  }
}

async function main() {
  const dataDir = positionals[0];
  if (!dataDir)
    throw new Error(
      'usage: node bench/bm25.mjs <data-dir> [--seconds 2] [--rounds 1] [--systems a,b]',
    );
  if (values.role) return child(values.role, resolve(dataDir));
  // Rounds run the systems interleaved (a, b, a, b, ...) so slow phases of a shared machine hit
  // all alike; each system's row is its median run, and the speed-ups are medians of the
  // per-round ratios.
  const systems = values.systems.split(',');
  const runs = new Map(systems.map((system) => [system, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const system of systems) {
      process.stderr.write(`${system}...\n`);
      runs.get(system).push(await runChild(system, resolve(dataDir)));
    }
  }
  // The row of a system is its run with the median top-10 queries/s.
  const rows = systems.map((system) => medianRun(runs.get(system), (r) => r.qps[DEPTHS[0]]));
  const qpsHeads = DEPTHS.map((k) => `queries/s, top ${k}`).join(' | ');
  console.log(`| system | nDCG@10 | R@100 | build | index size | peak RSS | ${qpsHeads} |`);
  console.log(`|---|---|---|---|---|---|${DEPTHS.map(() => '---|').join('')}`);
  for (const r of rows) {
    const reload = r.reloadMs !== undefined ? ` (reload ${r.reloadMs.toFixed(0)} ms)` : '';
    console.log(
      `| ${r.system} | ${r.ndcg10.toFixed(4)} | ${r.r100.toFixed(4)} | ${(r.buildMs / 1000).toFixed(2)} s${reload} | ${mib(r.sizeBytes)} MiB | ${mib(r.peakRss)} MiB | ${DEPTHS.map((k) => r.qps[k].toFixed(0)).join(' | ')} |`,
    );
  }
  speedUps(runs);
}

await main();
