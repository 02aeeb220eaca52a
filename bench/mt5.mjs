// MT5Reranker: a T5-shaped encoder-decoder of t5-small size (6 + 6 layers, 512 wide, 32k
// vocabulary, random weights; generated at bench time by packages/onnx/test/fixtures/
// make-t5.py --bench, which needs Debian's python3-onnx) scoring (query, passage) pairs.
//
//   npm run build && node bench/mt5.mjs [--pairs 64] [--words 100] [--threads 2]
//       [--layers 6] [--dim 512] [--model <folder>]
//
// MonoT5Scorer.score at batch 1, 8 and 32 on the same pairs: pairs/s, the CPU time per pair
// (less disturbed by other load than wall time), and the share of wall time spent outside
// ONNX Runtime's runs (tokenizing, building the prompt ids, tensors, the log-softmax): irserve's
// own work. --model uses an exported seq2seq folder of yours (token_false/token_true ▁false/▁true).
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '64' },
    words: { type: 'string', default: '100' },
    threads: { type: 'string', default: '2' },
    layers: { type: 'string', default: '6' },
    dim: { type: 'string', default: '512' },
    model: { type: 'string' },
  },
});
const root = new URL('../', import.meta.url);
const onnx = await import(new URL('packages/onnx/dist/index.js', root).href);

const WORDS = (
  'the quick brown fox jump over lazy dog hello world search engine rank re cat a is what ' +
  'neural retrieval model query passage document yes no how do i cook pasta water boil salt'
).split(' ');

/** Seeded texts of about `words` in-vocabulary words (so tokens ~ words). */
function texts(count, words, seed) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: count }, () =>
    Array.from(
      { length: Math.max(1, words - 2 + Math.floor(next() * 5)) },
      () => WORDS[Math.floor(next() * WORDS.length)],
    ).join(' '),
  );
}

function generateModel(dir) {
  const script = new URL('packages/onnx/test/fixtures/make-t5.py', root).pathname;
  const python = ['/usr/bin/python3', 'python3'].find(
    (p) => spawnSync(p, ['-c', 'import onnx']).status === 0,
  );
  if (!python)
    throw new Error(
      'needs python3 with the onnx module (Debian: apt install python3-onnx), or --model <folder>',
    );
  const args = [script, '--bench', dir, '--layers', values.layers, '--dim', values.dim];
  const run = spawnSync(python, [...args, '--decoder-layers', values.layers], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error('model generation failed');
}

/** Time spent inside ONNX Runtime's runs (encoder and decoder both go through runTensors). */
function timeSessionRuns() {
  const timings = { sessionMs: 0 };
  const original = onnx.ModelSession.prototype.runTensors;
  onnx.ModelSession.prototype.runTensors = async function (...args) {
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      timings.sessionMs += performance.now() - started;
    }
  };
  return timings;
}

async function scoreRows(folder, pairs) {
  const timings = timeSessionRuns();
  const pool = new onnx.SessionPool();
  const rows = [];
  for (const batch of [1, 8, 32]) {
    const lease = await pool.acquireSeq2Seq(folder, { intra_op_threads: Number(values.threads) });
    const settings = onnx.parseMT5Config({ model_path: folder, batch_size: batch });
    const scorer = new onnx.MonoT5Scorer(lease, settings, {
      false: '▁false',
      true: '▁true',
      source: 'the bench',
    });
    await scorer.score(pairs.slice(0, batch)); // warm-up
    timings.sessionMs = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await scorer.score(pairs);
    const totalMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    await lease.release();
    rows.push({
      batch,
      perSecond: pairs.length / (totalMs / 1000),
      cpuMsPerPair: (used.user + used.system) / 1000 / pairs.length,
      outside: (totalMs - timings.sessionMs) / totalMs,
    });
  }
  return rows;
}

const dir = await mkdtemp(join(tmpdir(), 'irserve-bench-mt5-'));
try {
  const folder = values.model ?? join(dir, 'model');
  if (!values.model) generateModel(folder);
  const count = Number(values.pairs);
  const queries = texts(count, 8, 7);
  const pairs = texts(count, Number(values.words), 11).map((passage, i) => ({
    query: queries[i],
    passage,
  }));
  const lease = await new onnx.SessionPool().acquireSeq2Seq(folder);
  const prompt = new onnx.MonoT5Prompt(lease.tokenizer, onnx.MONOT5_PROMPT, {
    queryTokens: 180,
    documentTokens: 512,
  });
  const meanTokens =
    pairs.reduce((sum, p) => sum + prompt.encode(p.query, p.passage).ids.length, 0) / count;
  await lease.release();
  console.log(
    `model: ${values.model ?? `generated t5 ${values.layers}+${values.layers} layers x ${values.dim}`}, ${count} pairs of ${meanTokens.toFixed(1)} tokens on average, intra_op_threads ${values.threads}\n`,
  );
  const rows = await scoreRows(folder, pairs);
  console.log('| batch | pairs/s | CPU ms per pair | outside ONNX Runtime | vs batch 1 |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of rows)
    console.log(
      `| ${row.batch} | ${row.perSecond.toFixed(1)} | ${row.cpuMsPerPair.toFixed(1)} | ${(row.outside * 100).toFixed(1)}% | ${(row.perSecond / rows[0].perSecond).toFixed(2)}x |`,
    );
} finally {
  await rm(dir, { recursive: true, force: true });
}
