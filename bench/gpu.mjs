// The gpu extra: GGUF models on llama.cpp and GPU k-means for irserve-build-index --use_gpu.
//
//   npm run build && node bench/gpu.mjs [--texts 64] [--words 24] [--layers 6] [--dim 384]
//       [--embed-model <gguf>] [--rerank-model <gguf>] [--threads 2] [--devices cpu,cuda,vulkan]
//       [--n 20000] [--d 128] [--k 256] [--iterations 5] [--big] [--kmeans-threads <--threads>]
//
// 1. Embeddings/s of a GGUF embedding model at batch 1 (one text per call) and batch 32 (32
//    texts per call spread over 4 llama.cpp contexts), on the CPU and, where they load, CUDA
//    and Vulkan (--devices picks: cpu,cuda,vulkan by default).
// 2. Rerank pairs/s of a GGUF ranking model at the same batches.
//    Without --embed-model / --rerank-model, BERT-shaped models of --layers x --dim with random
//    weights are generated (bertGguf; outputs are meaningless, the arithmetic is real).
// 3. k-means training time: the CPU build's k-means (WASM SIMD) against the --use_gpu path
//    (ONNX Runtime assigner) on the CPU provider and on a GPU provider where one initialises,
//    for n x d vectors and k centroids; --big asks for the issue's 1M x 768 x 4096.
// GPU rows say "no GPU" (with the reason) where no GPU backend loads.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';

const { values } = parseArgs({
  options: {
    texts: { type: 'string', default: '64' },
    words: { type: 'string', default: '24' },
    layers: { type: 'string', default: '6' },
    dim: { type: 'string', default: '384' },
    threads: { type: 'string', default: '2' },
    devices: { type: 'string', default: 'cpu,cuda,vulkan' },
    'embed-model': { type: 'string' },
    'rerank-model': { type: 'string' },
    n: { type: 'string', default: '20000' },
    d: { type: 'string', default: '128' },
    k: { type: 'string', default: '256' },
    iterations: { type: 'string', default: '5' },
    big: { type: 'boolean', default: false },
    'kmeans-threads': { type: 'string' },
  },
});
const root = new URL('../', import.meta.url);
const gpu = await import(new URL('packages/gpu/dist/index.js', root).href);
const gpuKmeans = await import(new URL('packages/gpu/dist/kmeans/index.js', root).href);
const dense = await import(new URL('packages/dense/dist/index.js', root).href);
const { kmeansWith } = await import(
  new URL('packages/dense/dist/vector-index/kmeans.js', root).href
);

const logger = pino({ level: 'silent' });
const threads = Number(values.threads);
const WORDS =
  'jet engine turbine thrust boundary layer flow shock wave wing flutter heat transfer'.split(' ');

function texts(count, words, seed) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: count }, () =>
    Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '),
  );
}

async function models(dir) {
  const dim = Number(values.dim);
  const shape = {
    embed: dim,
    ffn: dim * 4,
    layers: Number(values.layers),
    heads: dim / 64,
    context: 512,
  };
  const embed = values['embed-model'] ?? join(dir, 'embed.gguf');
  const rerank = values['rerank-model'] ?? join(dir, 'rerank.gguf');
  if (!values['embed-model']) await writeFile(embed, gpu.bertGguf('bench-embed', 1, 7, shape));
  if (!values['rerank-model']) await writeFile(rerank, gpu.bertGguf('bench-rerank', 4, 11, shape));
  return { embed, rerank };
}

async function timeIt(fn) {
  const started = performance.now();
  await fn();
  return (performance.now() - started) / 1000;
}

/** items/s at batch 1 and 32 for one device, or the reason it does not load. */
async function modelRates(path, role, device, items) {
  const pool = new gpu.GgufModelPool();
  let lease;
  try {
    lease = await pool.acquire({ path, role, device, gpuLayers: 'max', threads }, logger);
  } catch (error) {
    return { problem: error.message.split(' Its binaries')[0] };
  }
  const rates = {};
  for (const [batch, contexts] of [
    [1, 1],
    [32, 4],
  ]) {
    const settings = { maxLength: 256, contextSize: undefined, contexts, threads };
    const worker =
      role === 'embedding'
        ? await gpu.ggufEmbedder(
            { ...lease, release: async () => {} },
            { ...settings, normalize: true },
          )
        : await gpu.ggufRanker(
            { ...lease, release: async () => {} },
            { ...settings, template: undefined },
          );
    const run = (chunk) =>
      role === 'embedding'
        ? worker.embed(chunk)
        : worker.score(chunk.map((t) => ({ query: 'jet engine thrust', passage: t })));
    await run(items.slice(0, Math.min(4, items.length)));
    const seconds = await timeIt(async () => {
      for (let i = 0; i < items.length; i += batch) await run(items.slice(i, i + batch));
    });
    rates[batch] = items.length / seconds;
    await worker.close();
  }
  await lease.release();
  return { rates, backend: lease.runtime.backend, gpus: lease.runtime.gpus };
}

function random(n, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 4294967296 - 0.5;
  }
  return out;
}

async function kmeansRows() {
  const [n, d, k, iterations] = values.big
    ? [1_000_000, 768, 4096, Number(values.iterations)]
    : [Number(values.n), Number(values.d), Number(values.k), Number(values.iterations)];
  const data = random(n * d, 5);
  const rows = [];
  const label = `${n.toLocaleString()} x ${d}, k ${k}, ${iterations} iterations`;
  const cpu = await timeIt(() =>
    dense.kmeans(data, d, k, {
      iterations,
      seed: 1,
      metric: 'l2',
      threads: Number(values['kmeans-threads'] ?? threads),
    }),
  );
  const cpuLabel = `CPU build k-means (WASM SIMD, ${values['kmeans-threads'] ?? threads} threads)`;
  rows.push([label, cpuLabel, cpu.toFixed(1), '1.0x']);
  for (const providers of [['cpu'], undefined]) {
    let assigner;
    try {
      assigner = await gpuKmeans.openGpuAssigner(providers);
    } catch (error) {
      rows.push([
        label,
        '--use_gpu assigner on a GPU',
        'no GPU',
        error.message.replace(/^--use_gpu: /, '').slice(0, 160),
      ]);
      continue;
    }
    const seconds = await timeIt(() =>
      kmeansWith((c, x, dim, m) => assigner.assign(c, x, dim, m), data, d, k, {
        iterations,
        seed: 1,
        metric: 'l2',
      }),
    );
    rows.push([
      label,
      `--use_gpu assigner on ${assigner.providers.join(', ')}`,
      seconds.toFixed(1),
      `${(cpu / seconds).toFixed(1)}x`,
    ]);
    await assigner.close();
  }
  return rows;
}

function table(header, rows) {
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log();
}

const dir = await mkdtemp(join(tmpdir(), 'irserve-bench-gpu-'));
try {
  const { embed, rerank } = await models(dir);
  const items = texts(Number(values.texts), Number(values.words), 3);
  const rows = [];
  for (const [role, path, unit] of [
    ['embedding', embed, 'embeddings/s'],
    ['ranking', rerank, 'pairs/s'],
  ])
    for (const device of values.devices.split(',')) {
      const result = await modelRates(path, role, device, items);
      if (result.problem) rows.push([role, device, unit, 'no GPU', 'no GPU', '', result.problem]);
      else {
        const [one, many] = [result.rates[1], result.rates[32]];
        rows.push([
          role,
          result.backend,
          unit,
          one.toFixed(0),
          many.toFixed(0),
          `${(many / one).toFixed(1)}x`,
          result.gpus.join(', '),
        ]);
      }
    }
  console.log(
    `GGUF models (${values['embed-model'] ? 'given' : `generated BERT ${values.layers} x ${values.dim}`}), ${items.length} texts of ${values.words} words, ${threads} llama.cpp threads\n`,
  );
  table(['model', 'device', 'unit', 'batch 1', 'batch 32', 'batch 32 / batch 1', 'note'], rows);
  table(['k-means', 'trainer', 'seconds', 'vs CPU build'], await kmeansRows());
} finally {
  await rm(dir, { recursive: true, force: true });
}
