// Checkpoints run without an export step: a random-weight checkpoint of a real model's shape
// (written at bench time by packages/onnx/test/fixtures/make-checkpoints.py --bench; needs
// Debian's python3-torch), against the torch.onnx.export of the same weights (what Optimum
// writes, before its own optimisation passes), side by side in one run.
//
//   npm run build && node bench/checkpoints.mjs [--shapes bert-base,qwen3-0.6b] [--texts 64]
//       [--words 48] [--threads 2] [--batch 16] [--rounds 3] [--dir <folder>] [--keep]
//
// 1. Start-up, each in a fresh process: the time to a ready session (irserve: read the
//    headers, build the graph, create the session; the export: create the session), the RSS
//    once ready and the peak RSS, against the size of the weights.
// 2. Embeddings/s of TextEncoder over the same texts (mean pooling, or last-token for a
//    decoder), the two models interleaved for --rounds rounds; the best round of each.
// --dir keeps the generated folders there (and reuses them on the next run); --keep keeps the
// temporary folder otherwise deleted.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    shapes: { type: 'string', default: 'bert-base,qwen3-0.6b' },
    texts: { type: 'string', default: '64' },
    words: { type: 'string', default: '48' },
    threads: { type: 'string', default: '2' },
    batch: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    child: { type: 'string' },
    head: { type: 'string' },
  },
});
const root = new URL('../', import.meta.url);
const onnx = await import(new URL('packages/onnx/dist/index.js', root).href);
const session = { intra_op_threads: Number(values.threads) };

/** The child: load one folder, report the time to ready and the memory, exit. */
if (values.child) {
  const started = performance.now();
  const lease = await new onnx.SessionPool().acquire(values.child, {
    ...session,
    ...(values.head ? { head: values.head } : {}),
  });
  const ms = performance.now() - started;
  console.log(
    JSON.stringify({
      ms,
      rss: process.memoryUsage().rss,
      peak: process.resourceUsage().maxRSS * 1024,
    }),
  );
  await lease.release();
  process.exit(0);
}

const HEAD = { 'bert-base': 'hidden', 'qwen3-0.6b': 'hidden' };
const POOLING = { 'bert-base': 'mean', 'qwen3-0.6b': 'last_token' };
const WORDS = (
  'the quick brown fox jump over lazy dog hello world search engine rank re cat a is what ' +
  'neural retrieval model query passage document yes no how do i cook pasta water boil salt'
).split(' ');

function texts(count, words) {
  let s = 7;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from(
    { length: count },
    (_, i) =>
      Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ') +
      ` ${i}`,
  );
}

/**
 * Writes `dir/checkpoint` and `dir/export` unless a --dir rerun finds them. Returns null, or why
 * the export was not produced when the generator failed after writing the checkpoint (so that
 * irserve's side is still measured); throws when there is no checkpoint.
 */
function generate(dir, shape) {
  const checkpoint = ['config.json', 'model.safetensors'].every((f) =>
    existsSync(join(dir, 'checkpoint', f)),
  );
  if (checkpoint && existsSync(join(dir, 'export', 'model.onnx'))) return null;
  const script = new URL('packages/onnx/test/fixtures/make-checkpoints.py', root).pathname;
  const python = ['/usr/bin/python3', 'python3'].find(
    (p) => spawnSync(p, ['-c', 'import torch']).status === 0,
  );
  if (!python) throw new Error('needs python3 with torch (Debian: apt install python3-torch)');
  const run = spawnSync(python, [script, '--bench', dir, '--shape', shape], {
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (run.status === 0) return null;
  rmSync(join(dir, 'export'), { recursive: true, force: true });
  const why =
    run.stderr.trim().split('\n').slice(-3).join('\n') || `exit status ${run.status ?? run.signal}`;
  if (!existsSync(join(dir, 'checkpoint', 'model.safetensors')))
    throw new Error(`generating the ${shape} checkpoint failed:\n${why}`);
  console.error(`the ${shape} export was not produced (irserve's side is measured alone):\n${why}`);
  return why.split('\n').at(-1);
}

function load(folder, head) {
  const args = [new URL(import.meta.url).pathname, '--child', folder, '--threads', values.threads];
  const run = spawnSync(process.execPath, head ? [...args, '--head', head] : args, {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`loading ${folder} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

/** Embeddings/s of each side (the export's left out when it was not produced). */
async function speeds(shape, dir, inputs, withExport) {
  const pool = new onnx.SessionPool();
  const options = { batchSize: Number(values.batch), pooling: POOLING[shape], maxLength: 512 };
  const encoders = {
    irserve: new onnx.TextEncoder(
      await pool.acquire(join(dir, 'checkpoint'), { ...session, head: HEAD[shape] }),
      options,
    ),
  };
  if (withExport)
    encoders.export = new onnx.TextEncoder(
      await pool.acquire(join(dir, 'export'), session),
      options,
    );
  const best = { irserve: 0, export: 0 };
  let worstDiff = withExport ? 0 : NaN;
  const a = await encoders.irserve.embed(inputs);
  const b = withExport ? await encoders.export.embed(inputs) : [];
  b.forEach((v, i) =>
    v.forEach((x, j) => (worstDiff = Math.max(worstDiff, Math.abs(x - a[i][j])))),
  );
  for (let round = 0; round < Number(values.rounds); round++)
    for (const name of Object.keys(encoders)) {
      const started = performance.now();
      await encoders[name].embed(inputs);
      const perSecond = inputs.length / ((performance.now() - started) / 1000);
      best[name] = Math.max(best[name], perSecond);
    }
  await Promise.all(Object.values(encoders).map((e) => e.close()));
  return { ...best, worstDiff };
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const work = values.dir ?? (await mkdtemp(join(tmpdir(), 'irserve-bench-checkpoints-')));
try {
  const inputs = texts(Number(values.texts), Number(values.words));
  const loads = [];
  const runs = [];
  for (const shape of values.shapes.split(',')) {
    const dir = join(work, shape);
    const missing = generate(dir, shape);
    const weights = (await stat(join(dir, 'checkpoint', 'model.safetensors'))).size;
    loads.push({
      shape,
      what: 'irserve, built from the checkpoint',
      weights,
      ...load(join(dir, 'checkpoint'), HEAD[shape]),
    });
    loads.push({
      shape,
      what: 'torch.onnx.export of the same weights',
      weights,
      ...(missing ? { missing } : load(join(dir, 'export'))),
    });
    runs.push({ shape, missing, ...(await speeds(shape, dir, inputs, !missing)) });
  }
  const load1 = (await import('node:os')).loadavg()[0].toFixed(2);
  console.log(`intra_op_threads ${values.threads}, load average ${load1}\n`);
  console.log('| model | graph | weights | ready in | RSS when ready | peak RSS |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const row of loads)
    console.log(
      row.missing
        ? `| ${row.shape} | ${row.what} | ${mb(row.weights)} | not produced: ${row.missing} | – | – |`
        : `| ${row.shape} | ${row.what} | ${mb(row.weights)} | ${(row.ms / 1000).toFixed(2)} s | ${mb(row.rss)} | ${mb(row.peak)} |`,
    );
  console.log(
    `\n${inputs.length} texts of ${values.words} words, batch ${values.batch}, best of ${values.rounds} rounds:\n`,
  );
  console.log(
    '| model | irserve embeddings/s | export embeddings/s | irserve / export | largest difference |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of runs)
    console.log(
      row.missing
        ? `| ${row.shape} | ${row.irserve.toFixed(1)} | not produced | – | – |`
        : `| ${row.shape} | ${row.irserve.toFixed(1)} | ${row.export.toFixed(1)} | ${(row.irserve / row.export).toFixed(2)} | ${row.worstDiff.toExponential(1)} |`,
    );
} finally {
  if (!values.dir && !values.keep) await rm(work, { recursive: true, force: true });
}
