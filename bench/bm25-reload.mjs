// BM25 index reload at scale: builds an index over N synthetic documents (default 1,000,000;
// Zipf-distributed words over a 200,000-word vocabulary, 40-120 words each, like abstracts),
// then measures what a restart costs: a new engine opening the persisted index (offset map
// checked, index file read and checked), and the first query after it.
//
//   npm run build && node bench/bm25-reload.mjs [--docs 1000000] [--keep]
//
// Everything goes to a temp dir, deleted at the end unless --keep.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bm25Over } from './lib/bm25-engine.mjs';

const { values } = parseArgs({
  options: { docs: { type: 'string', default: '1000000' }, keep: { type: 'boolean' } },
});
const N = Number(values.docs);

/** A seeded generator, so every run indexes the same corpus. */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function word(rank) {
  let out = '';
  for (let r = rank + 1; r > 0; r = Math.floor(r / 26)) out += String.fromCharCode(97 + (r % 26));
  return out + 'x';
}

async function writeCorpus(path) {
  const next = random(42);
  const vocabulary = 200_000;
  // Zipf(1) by inverse transform over a harmonic approximation.
  const zipf = () =>
    Math.min(vocabulary - 1, Math.floor(Math.exp(next() * Math.log(vocabulary))) - 1);
  const out = createWriteStream(path);
  for (let i = 0; i < N; i++) {
    const length = 40 + Math.floor(next() * 80);
    const words = Array.from({ length }, () => word(zipf()));
    const line = JSON.stringify({
      id: `doc${i}`,
      title: words.slice(0, 8).join(' '),
      text: words.slice(8).join(' '),
    });
    if (!out.write(line + '\n')) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}

const { pino } = await import('pino');
const logger = pino({ level: 'silent' });
const dir = await mkdtemp(join(tmpdir(), 'irserve-bm25-reload-'));
try {
  let t = performance.now();
  await writeCorpus(join(dir, 'corpus.jsonl'));
  const corpusMs = performance.now() - t;
  const corpusBytes = (await stat(join(dir, 'corpus.jsonl'))).size;

  t = performance.now();
  const corpus = join(dir, 'corpus.jsonl');
  const first = (await bm25Over({ corpus, dir, logger })).open();
  await first.start();
  const buildMs = performance.now() - t;
  await first.close();
  const indexBytes = (await stat(join(dir, 'idx', 'index.bm25'))).size;

  t = performance.now();
  // A new collection and engine, as a restarted server makes them.
  const reloaded = (await bm25Over({ corpus, dir, logger })).open();
  await reloaded.start();
  const reloadMs = performance.now() - t;
  t = performance.now();
  await reloaded.searchBatch([{ query: `${word(5)} ${word(500)} ${word(5000)}`, limit: 10 }]);
  const firstQueryMs = performance.now() - t;
  await reloaded.close();

  const mib = (b) => (b / 2 ** 20).toFixed(0);
  console.log(`| documents | corpus | index file | build | reload | first query |`);
  console.log(`|---|---|---|---|---|---|`);
  console.log(
    `| ${N.toLocaleString('en')} | ${mib(corpusBytes)} MiB (written in ${(corpusMs / 1000).toFixed(1)} s) | ${mib(indexBytes)} MiB | ${(buildMs / 1000).toFixed(1)} s | ${reloadMs.toFixed(0)} ms | ${firstQueryMs.toFixed(1)} ms |`,
  );
} finally {
  if (!values.keep) await rm(dir, { recursive: true, force: true });
}
