// In-process models on ONNX Runtime: a BERT-shaped encoder of realistic size (6 layers,
// 384 wide, random weights, generated at bench time by packages/onnx/test/fixtures/
// make-models.py --bench; needs Debian's python3-onnx) embedding query-length texts.
//
//   npm run build && node bench/onnx.mjs [--words 16] [--texts 256] [--threads 2]
//       [--layers 6] [--dim 384] [--requests 256] [--model <folder>]
//       [--device cpu|webgpu|cuda|auto] [--warmup-passes 0]
//
// 1. TextEncoder.embed at batch 1, 8 and 32: embeddings/s, and the share of wall time spent
//    outside session.run (tokenization, tensors, pooling): irserve's own work.
// 2. /search of a Dense service with the local encoder over a Flat index, through the batching
//    processor with batch_size 1 and 32, the same concurrent requests (all distinct, no cache):
//    queries/s side by side.
// --model uses an exported folder of yours instead of the generated one. --device is the
// `device` of @irserve/onnx's session options and of Dense's `encoder` (absent: as a config
// without it, the IRSERVE_ONNX_DEVICE variable else the CPU). --warmup-passes N runs N untimed
// passes over the texts at each batch size and N untimed rounds of other queries through each
// /search processor first: a GPU provider compiles its kernels for each new input shape, which a
// server long past its start has done.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';

const { values } = parseArgs({
  options: {
    words: { type: 'string', default: '16' },
    texts: { type: 'string', default: '256' },
    requests: { type: 'string', default: '256' },
    threads: { type: 'string', default: '2' },
    layers: { type: 'string', default: '6' },
    dim: { type: 'string', default: '384' },
    model: { type: 'string' },
    device: { type: 'string' },
    'warmup-passes': { type: 'string', default: '0' },
  },
});
const root = new URL('../', import.meta.url);
const onnx = await import(new URL('packages/onnx/dist/index.js', root).href);
const { Dense } = await import(new URL('packages/dense/dist/index.js', root).href);
const { saveIndex, trainAndAdd } = await import(
  new URL('packages/dense/dist/vector-index/index.js', root).href
);
const { createApp } = await import(new URL('packages/irserve/dist/index.js', root).href);

if (values.device !== undefined && !onnx.ONNX_DEVICES.includes(values.device))
  throw new Error(
    `--device must be one of ${onnx.ONNX_DEVICES.join(', ')}, got "${values.device}"`,
  );
const WARMUP_PASSES = Number(values['warmup-passes']);
if (!Number.isInteger(WARMUP_PASSES) || WARMUP_PASSES < 0)
  throw new Error(`--warmup-passes must be a whole number >= 0, got "${values['warmup-passes']}"`);
/** Session options of every session the bench opens: threads, and the device when given. */
const sessionSettings = {
  intra_op_threads: Number(values.threads),
  ...(values.device ? { device: values.device } : {}),
};

const WORDS = (
  'the quick brown fox jump over lazy dog hello world search engine rank re cat a is what ' +
  'neural retrieval model query passage document yes no how do i cook pasta water boil salt'
).split(' ');

/** Seeded texts of about `words` in-vocabulary words (so tokens ~ words). */
function texts(count, words, seed) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from(
    { length: count },
    (_, i) =>
      Array.from(
        { length: words - 2 + Math.floor(next() * 5) },
        () => WORDS[Math.floor(next() * WORDS.length)],
      ).join(' ') + ` ${i}`,
  );
}

function generateModel(dir) {
  const script = new URL('packages/onnx/test/fixtures/make-models.py', root).pathname;
  const python = ['/usr/bin/python3', 'python3'].find(
    (p) => spawnSync(p, ['-c', 'import onnx']).status === 0,
  );
  if (!python)
    throw new Error(
      'needs python3 with the onnx module (Debian: apt install python3-onnx), or --model <folder>',
    );
  const run = spawnSync(
    python,
    [script, '--bench', dir, '--layers', values.layers, '--dim', values.dim],
    { stdio: 'inherit' },
  );
  if (run.status !== 0) throw new Error('model generation failed');
}

async function encoderRows(folder, inputs) {
  const pool = new onnx.SessionPool();
  const rows = [];
  for (const batch of [1, 8, 32]) {
    const encoder = new onnx.TextEncoder(await pool.acquire(folder, sessionSettings), {
      batchSize: batch,
      maxLength: 512,
    });
    await encoder.embed(inputs.slice(0, batch)); // warm-up
    for (let pass = 0; pass < WARMUP_PASSES; pass++)
      for (let i = 0; i < inputs.length; i += batch)
        await encoder.embed(inputs.slice(i, i + batch));
    const timings = { sessionMs: 0, totalMs: 0 };
    for (let i = 0; i < inputs.length; i += batch)
      await encoder.embed(inputs.slice(i, i + batch), timings);
    await encoder.close();
    rows.push({
      batch,
      perSecond: inputs.length / (timings.totalMs / 1000),
      outside: (timings.totalMs - timings.sessionMs) / timings.totalMs,
      ms: timings.totalMs / Math.ceil(inputs.length / batch),
    });
  }
  return rows;
}

async function searchRows(folder, dir, queries, dim) {
  const n = 1000;
  const vectors = new Float32Array(n * dim).map((_, i) => Math.sin(i * 12.9898) % 1);
  const indexDir = join(dir, 'index');
  await saveIndex(
    trainAndAdd('Flat', vectors, dim, 'ip'),
    Array.from({ length: n }, (_, i) => `d${i}`),
    indexDir,
  );
  const encoder = { model_path: folder, ...sessionSettings, batch_size: 32 };
  const service = (name, batch) => ({
    name,
    engine: 'Dense',
    cache: -1,
    batch_size: batch,
    max_wait_time: 0.01,
    config: { index_path: indexDir, encoder },
  });
  const app = await createApp(
    { services: [service('b1', 1), service('b32', 32)] },
    {
      engines: [Dense],
      extras: false,
      logger: pino({ level: 'silent' }),
      interactive: false,
      configDir: dir,
      cacheDir: join(dir, 'cache'),
    },
  );
  await app.start();
  const searchAll = async (name, prefix) => {
    const replies = await Promise.all(
      queries.map((query) =>
        app.http.inject({
          method: 'POST',
          url: '/search',
          payload: { service: name, query: `${prefix} ${query}`, limit: 10 },
        }),
      ),
    );
    if (replies.some((r) => r.statusCode !== 200))
      throw new Error(`a /search failed: ${replies.find((r) => r.statusCode !== 200).body}`);
  };
  const rows = [];
  for (const name of ['b1', 'b32']) {
    for (let pass = 0; pass < WARMUP_PASSES; pass++) await searchAll(name, `warm${pass} ${name}`);
    const started = performance.now();
    await searchAll(name, name);
    rows.push({ name, perSecond: queries.length / ((performance.now() - started) / 1000) });
  }
  await app.close();
  return rows;
}

const dir = await mkdtemp(join(tmpdir(), 'irserve-bench-onnx-'));
try {
  const folder = values.model ?? join(dir, 'model');
  if (!values.model) generateModel(folder);
  const probeLease = await new onnx.SessionPool().acquire(folder, sessionSettings);
  const { device, providers, skipped } = probeLease.session.device;
  const probe = new onnx.TextEncoder(probeLease);
  const [sample] = await probe.embed(['warm']);
  const dim = sample.length;
  const tokenizer = onnx.TextTokenizer.fromFolder(await onnx.loadModelFolder(folder));
  await probe.close();
  const inputs = texts(Number(values.texts), Number(values.words), 7);
  const meanTokens =
    inputs.reduce((sum, t) => sum + tokenizer.encode(t, { maxLength: 512 }).ids.length, 0) /
    inputs.length;
  console.log(
    `model: ${values.model ?? `generated ${values.layers} layers x ${values.dim}`}, dim ${dim}, ${inputs.length} texts of ${meanTokens.toFixed(1)} tokens on average, intra_op_threads ${values.threads}, device ${values.device ?? '(not set)'}: runs on ${device === 'custom' ? providers.join(', ') : device}${skipped.length ? ` (passed over: ${skipped.join('; ')})` : ''}${WARMUP_PASSES ? `, ${WARMUP_PASSES} warm-up passes` : ''}\n`,
  );
  const rows = await encoderRows(folder, inputs);
  console.log('| batch | embeddings/s | ms per batch | outside session.run | vs batch 1 |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of rows)
    console.log(
      `| ${row.batch} | ${row.perSecond.toFixed(1)} | ${row.ms.toFixed(1)} | ${(row.outside * 100).toFixed(1)}% | ${(row.perSecond / rows[0].perSecond).toFixed(2)}x |`,
    );
  const search = await searchRows(
    folder,
    dir,
    texts(Number(values.requests), Number(values.words), 11),
    dim,
  );
  console.log(
    `\n/search, Dense + local encoder, ${values.requests} concurrent distinct queries, no cache:\n`,
  );
  console.log('| processor | queries/s | vs batch_size 1 |');
  console.log('| --- | --- | --- |');
  for (const row of search)
    console.log(
      `| batch_size ${row.name.slice(1)} | ${row.perSecond.toFixed(1)} | ${(row.perSecond / search[0].perSecond).toFixed(2)}x |`,
    );
} finally {
  await rm(dir, { recursive: true, force: true });
}
