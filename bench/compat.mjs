// Throughput of the provider-compatible routes against irserve's native routes, same services.
//
//   npm run build && node bench/compat.mjs [--duration 3] [--connections 32] [--rounds 3]
//                       [--inject-rounds 15] [--texts 8] [--documents 20] [--dim 384]
//
// irserve runs in a child process with two services behind batch processors (cache off, so
// every request reaches the engine): `emb`, an embedder that stands in for a GPU model (1 ms
// per batch plus hashing `dim`-dimensional vectors), and `ce`, a word-overlap scorer (1 ms per
// batch). autocannon loads, interleaved round by round:
//   embeddings: native POST /embed {service, input} vs OpenAI POST /v1/embeddings (float and
//               base64) vs TEI POST /embed {inputs}, `texts` distinct texts per request;
//   rerank:     native POST /score {service, query, passages} vs Cohere/Jina POST /v1/rerank,
//               Cohere POST /v2/rerank, TEI POST /rerank, `documents` documents per request.
// First, each route's CPU cost in-process through app.inject (see injectCosts); then the socket
// runs. Prints the median round's requests/s and latency per route, and irserve's CPU time per request
// (read from its process between runs): on a machine shared with other work, requests/s swing
// from run to run, while CPU per request does not; its ratio to the native route's is the
// capacity of the route relative to the native one when irserve is the bottleneck.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median, medianRun } from './lib/median.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    texts: { type: 'string', default: '8' },
    documents: { type: 'string', default: '20' },
    dim: { type: 'string', default: '384' },
    role: { type: 'string' },
    'inject-rounds': { type: 'string', default: '15' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const textsPerRequest = Number(values.texts);
const documentsPerRequest = Number(values.documents);
const dim = Number(values.dim);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stands in for an embedding model: a fixed cost per batch, hashed word vectors. */
class BenchEmbedder {
  async embedBatch(requests) {
    await sleep(1);
    return requests.map(({ text, kind }) => {
      const vector = new Float32Array(dim);
      let h = kind === 'query' ? 7 : 13;
      for (let i = 0; i < text.length; i++) {
        h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0;
        vector[h % dim] += 1;
      }
      return vector;
    });
  }
}

/** Stands in for a cross-encoder: a fixed cost per batch, word overlap scores. */
class BenchScorer {
  async scoreBatch(requests) {
    await sleep(1);
    return requests.map(({ query, passages }) => {
      const terms = new Set(query.split(' '));
      return passages.map((p) => p.split(' ').filter((w) => terms.has(w)).length);
    });
  }
}

async function buildApp() {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const service = (name, engine) => ({
    name,
    engine,
    cache: -1,
    batch_size: 64,
    max_wait_time: 0.002,
  });
  const app = await createApp(
    {
      services: [service('emb', 'BenchEmbedder'), service('ce', 'BenchScorer')],
      compat: { tei: { embed: 'emb', rerank: 'ce' } },
    },
    {
      logger: pino({ level: 'warn' }),
      interactive: false,
      extras: false,
      engines: [BenchEmbedder, BenchScorer],
    },
  );
  return app;
}

async function serveIrserve() {
  const app = await buildApp();
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/**
 * Each route's CPU cost in this process through `app.inject` (Fastify's whole request path but
 * the socket): blocks of 64 concurrent requests, the routes of a group interleaved block by
 * block for `inject-rounds` rounds, the median block per route. Short interleaved blocks see
 * the same machine, so the ratios hold on a shared, busy machine where socket runs swing.
 */
async function injectCosts() {
  const app = await buildApp();
  await app.start();
  const rounds = Number(values['inject-rounds']);
  let n = 0;
  const block = async (path, body) => {
    const before = process.cpuUsage();
    const replies = await Promise.all(
      Array.from({ length: 64 }, () =>
        app.http.inject({ method: 'POST', url: path, payload: body(n++) }),
      ),
    );
    const used = process.cpuUsage(before);
    if (replies.some((reply) => reply.statusCode !== 200)) throw new Error(`${path} failed`);
    return (used.user + used.system) / 64;
  };
  const out = {};
  for (const [group, cases] of Object.entries(CASES)) {
    for (const [, path, body] of cases) for (let i = 0; i < 3; i++) await block(path, body);
    const costs = cases.map(() => []);
    for (let round = 0; round < rounds; round++)
      for (const [i, [, path, body]] of cases.entries()) costs[i].push(await block(path, body));
    out[group] = costs.map((c) => median(c));
  }
  await app.close();
  return out;
}

/** Distinct texts for request `n` (no cache hits, no in-batch duplicates across requests). */
function texts(n, count, what) {
  return Array.from(
    { length: count },
    (_, i) => `${what} ${n} number ${i} about dense retrieval models and rerankers`,
  );
}

const CASES = {
  embeddings: [
    [
      'native /embed',
      '/embed',
      (n) => ({ service: 'emb', input: texts(n, textsPerRequest, 'text') }),
    ],
    [
      'OpenAI /v1/embeddings (float)',
      '/v1/embeddings',
      (n) => ({ model: 'emb', input: texts(n, textsPerRequest, 'text'), encoding_format: 'float' }),
    ],
    [
      'OpenAI /v1/embeddings (base64)',
      '/v1/embeddings',
      (n) => ({
        model: 'emb',
        input: texts(n, textsPerRequest, 'text'),
        encoding_format: 'base64',
      }),
    ],
    [
      'TEI /embed',
      '/embed',
      (n) => ({ inputs: texts(n, textsPerRequest, 'text'), normalize: false }),
    ],
  ],
  rerank: [
    [
      'native /score',
      '/score',
      (n) => ({
        service: 'ce',
        query: `query ${n} dense`,
        passages: texts(n, documentsPerRequest, 'doc'),
      }),
    ],
    [
      'Cohere/Jina /v1/rerank',
      '/v1/rerank',
      (n) => ({
        model: 'ce',
        query: `query ${n} dense`,
        documents: texts(n, documentsPerRequest, 'doc'),
      }),
    ],
    [
      'Cohere /v2/rerank',
      '/v2/rerank',
      (n) => ({
        model: 'ce',
        query: `query ${n} dense`,
        documents: texts(n, documentsPerRequest, 'doc'),
      }),
    ],
    [
      'TEI /rerank',
      '/rerank',
      (n) => ({ query: `query ${n} dense`, texts: texts(n, documentsPerRequest, 'doc') }),
    ],
  ],
};

/** The irserve child's CPU time so far (microseconds). */
async function cpuOf(child) {
  child.send('cpu');
  const [{ cpuMicros }] = await once(child, 'message');
  return cpuMicros;
}

/** Loads one route with a fresh body per request; `cpuUs` is irserve's CPU time per request. */
async function load(url, path, body, child) {
  let sent = 0;
  const cpuBefore = await cpuOf(child);
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(body(sent++)) }),
      },
    ],
  });
  const cpuUs = (await cpuOf(child)) - cpuBefore;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuUs: Math.round(cpuUs / Math.max(1, result.requests.total)),
  };
}

async function main() {
  const child = fork(
    new URL(import.meta.url).pathname,
    ['--role', 'irserve', '--dim', String(dim)],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const [{ url }] = await once(child, 'message');
  console.log(
    `irserve compat routes vs native routes: ${connections} connections, ${duration} s per run, median of ${rounds} interleaved rounds; ${textsPerRequest} texts of dim ${dim} per embeddings request, ${documentsPerRequest} documents per rerank request; cache off\n`,
  );
  const injected = await injectCosts();
  try {
    for (const [group, cases] of Object.entries(CASES)) {
      // Warm-up: JIT and connection set-up outside the measured runs.
      for (const [, path, body] of cases) await load(url, path, body, child);
      const runs = cases.map(() => []);
      for (let round = 0; round < rounds; round++)
        for (const [i, [, path, body]] of cases.entries())
          runs[i].push(await load(url, path, body, child));
      const medians = runs.map((r) => medianRun(r, (run) => run.rps));
      const cpu = runs.map((r) => medianRun(r, (run) => run.cpuUs).cpuUs);
      const native = medians[0].rps;
      console.log(
        `| ${group} route | requests/s | vs native | p50 ms | p99 ms | errors | irserve CPU µs/request | in-process CPU µs/request | capacity vs native (in-process) |`,
      );
      console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
      for (const [i, [name]] of cases.entries()) {
        const m = medians[i];
        const inProcess = injected[group];
        const capacity = Math.round((100 * inProcess[0]) / inProcess[i]);
        console.log(
          `| ${name} | ${m.rps} | ${Math.round((100 * m.rps) / native)}% | ${m.p50} | ${m.p99} | ${m.errors} | ${cpu[i]} | ${Math.round(inProcess[i])} | ${capacity}% |`,
        );
      }
      console.log('');
    }
  } finally {
    child.kill();
  }
}

// Last, so that the classes and tables above are initialised before either role runs.
if (values.role === 'irserve') {
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send({ cpuMicros: user + system });
  });
  process.send({ url: await serveIrserve() });
} else await main();
