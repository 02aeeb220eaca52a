// BM25 top-k strategies: exhaustive term-at-a-time scoring against MaxScore, on a real
// collection and on larger collections made of copies of it (each copy drops a different tenth
// of every document's words, so copies are near-duplicates, not clones). The engine scores
// collections of at most EXHAUSTIVE_MAX_DOCS documents exhaustively; this shows why. Exhaustive
// scoring is timed in JavaScript (an index made with `wasm: false`; top k as the engine picks
// it) and with postings added in WebAssembly (postings.wat, the engine's way), the latter with
// both ways of picking the top k from the accumulators (a heap during one pass, or score
// buckets, src/engines/bm25/select.ts); the engine uses buckets when the collection has at most
// SELECT_DOCS_PER_RESULT documents per result wanted.
//
//   npm run build && node bench/bm25-strategies.mjs <data-dir> [--copies 1,4,16] [--seconds 0.5]
//
// Queries are the collection's own (queries.jsonl), analysed as the engine does; all
// strategies run on one thread, in the same process, one after the other, best of three rounds.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    copies: { type: 'string', default: '1,4,16' },
    seconds: { type: 'string', default: '0.5' },
  },
});
const dist = new URL('../packages/irserve/dist/engines/bm25/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const { Bm25Index } = await load('bm25-index.js');
const { IndexBuilder } = await load('index-builder.js');
const { Analyzer } = await load('analyzer.js');
const { LUCENE_ENGLISH_STOP_WORDS } = await load('stopwords.js');
const { weightedQuery } = await load('query.js');
const { maxScoreSearch } = await load('max-score.js');
const { createScratch } = await load('search-scratch.js');
const { exhaustiveSearch, SELECT_DOCS_PER_RESULT } = await load('exhaustive.js');
const { EXHAUSTIVE_MAX_DOCS } = await load('exhaustive-threshold.js');

const jsonl = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));

function buildCopies(analysed, copies) {
  const builder = new IndexBuilder();
  for (let c = 0; c < copies; c++) {
    for (let i = 0; i < analysed.length; i++) {
      const terms = copies === 1 ? analysed[i] : analysed[i].filter((_, j) => (j + c) % 10 !== 0);
      builder.addDocument(`${c}-${i}`, terms);
    }
  }
  const data = builder.finish();
  const params = { k1: 0.9, b: 0.4 };
  return { index: new Bm25Index(data, params), js: new Bm25Index(data, params, { wasm: false }) };
}

/** Microseconds per query, best of three rounds of `seconds` each. */
function time(search, queries, seconds) {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    let n = 0;
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      for (const terms of queries) search(terms);
      n += queries.length;
    }
    best = Math.min(best, ((performance.now() - started) * 1000) / n);
  }
  return best;
}

async function main() {
  const dataDir = positionals[0];
  if (!dataDir) throw new Error('usage: node bench/bm25-strategies.mjs <data-dir> [--copies 1,4]');
  const docs = jsonl(join(resolve(dataDir), 'corpus.jsonl'));
  const queries = jsonl(join(resolve(dataDir), 'queries.jsonl')).map((q) => q.text);
  const analyzer = new Analyzer({ stemmer: 'porter', stopwords: LUCENE_ENGLISH_STOP_WORDS });
  const analysed = docs.map((d) => analyzer.analyze(`${d.title ?? ''} ${d.text ?? ''}`));
  const seconds = Number(values.seconds);
  console.log(
    `engine: exhaustive up to ${EXHAUSTIVE_MAX_DOCS} documents (top k by buckets when documents <= ${SELECT_DOCS_PER_RESULT} x k), MaxScore above`,
  );
  console.log(
    '| documents | k | MaxScore µs/query | exhaustive, JavaScript | exhaustive, WebAssembly, heap | exhaustive, WebAssembly, buckets | best exhaustive speed-up |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const copies of values.copies.split(',').map(Number)) {
    const { index, js } = buildCopies(analysed, copies);
    const weighted = queries.map((q) => weightedQuery(index, analyzer, q));
    const scratch = createScratch();
    for (const k of [10, 100]) {
      const maxScore = time(
        (t) => maxScoreSearch(index, t, k, undefined, scratch),
        weighted,
        seconds,
      );
      const inJs = time((t) => exhaustiveSearch(js, t, k, undefined, {}), weighted, seconds);
      const [heap, buckets] = ['heap', 'buckets'].map((selection) =>
        time(
          (t) => exhaustiveSearch(index, t, k, undefined, scratch, selection),
          weighted,
          seconds,
        ),
      );
      const speedUp = maxScore / Math.min(heap, buckets);
      const cells = [maxScore, inJs, heap, buckets].map((x) => x.toFixed(1)).join(' | ');
      console.log(`| ${index.numDocs} | ${k} | ${cells} | ${speedUp.toFixed(2)}x |`);
    }
  }
}

await main();
