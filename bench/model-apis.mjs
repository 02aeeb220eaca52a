// Throughput of an API-backed score service, batched versus one request per upstream call.
//
//   npm run build && node bench/model-apis.mjs [--duration 5] [--connections 64] [--latency-ms 30]
//
// A stand-in OpenAI-compatible `/embeddings` server takes `latency-ms` per call whatever its
// size, like a GPU model with spare batch capacity. It and irserve each run in a child process
// (so that the load generator's event loop does not delay the stand-in's timers); irserve has
// two OpenAIEmbeddingScorer services in front of it: batch_size 32 and batch_size 1.
// autocannon sends /score requests with 20 passages and a distinct query each (no cache hits,
// no in-batch duplicates). Prints requests/s, latency, and upstream calls per case.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    'latency-ms': { type: 'string', default: '30' },
    role: { type: 'string' },
    upstream: { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const latencyMs = Number(values['latency-ms']);
const DIMENSION = 64;
const PASSAGES = Array.from(
  { length: 20 },
  (_, i) => `passage ${i}: dense retrieval models embed queries and documents in one vector space`,
);

if (values.role === 'irserve') {
  process.send({ url: await serveIrserve(values.upstream) });
} else if (values.role === 'standin') {
  const { url, stats } = await serveStandIn();
  process.on('message', () => process.send({ stats }));
  process.send({ url });
} else {
  await main();
}

async function serveIrserve(upstream) {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const config = { base_url: upstream, model: 'stand-in', concurrency: 64 };
  const service = (name, batch_size) => ({
    name,
    engine: 'OpenAIEmbeddingScorer',
    config,
    cache: -1,
    batch_size,
    max_wait_time: 0.01,
  });
  const app = await createApp(
    { services: [service('batched', 32), service('single', 1)] },
    { logger: pino({ level: 'warn' }), interactive: false },
  );
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** The stand-in API: fixed latency per call, one vector per input, counts calls. */
async function serveStandIn() {
  const stats = { calls: 0, inputs: 0 };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const { input } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    stats.calls++;
    stats.inputs += input.length;
    const vector = (text) =>
      Array.from({ length: DIMENSION }, (_, d) => ((text.length * (d + 1)) % 17) / 17);
    const data = input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: vector(text),
    }));
    const body = JSON.stringify({ object: 'list', data });
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, stats };
}

/** Runs this script with `args` in a child process; resolves with the URL it reports. */
async function start(args) {
  const script = new URL(import.meta.url).pathname;
  const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ url }] = await once(child, 'message');
  return { url, child };
}

/** Loads `service` with a distinct query per request. */
async function load(url, service) {
  let sent = 0;
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/score',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ service, query: `query number ${sent++}`, passages: PASSAGES }),
        }),
      },
    ],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
  };
}

/** The stand-in's call counters so far. */
function upstreamStats(standIn) {
  return new Promise((resolve) => {
    standIn.child.once('message', ({ stats }) => resolve(stats));
    standIn.child.send('stats');
  });
}

async function main() {
  const standIn = await start(['--role', 'standin', '--latency-ms', String(latencyMs)]);
  const irserve = await start(['--role', 'irserve', '--upstream', standIn.url]);
  const rows = [];
  for (const [service, batchSize] of [
    ['single', 1],
    ['batched', 32],
  ]) {
    const before = await upstreamStats(standIn);
    const result = await load(irserve.url, service);
    const calls = (await upstreamStats(standIn)).calls - before.calls;
    rows.push({
      case: `/score, 20 passages, batch_size ${batchSize}`,
      connections,
      'requests/s': result.rps,
      'p50 ms': result.p50,
      'p99 ms': result.p99,
      'upstream calls': calls,
      'requests per call': (result.requests / Math.max(1, calls)).toFixed(1),
      errors: result.errors,
    });
  }
  irserve.child.kill();
  standIn.child.kill();
  console.log(`stand-in latency ${latencyMs} ms per call, ${duration} s per case`);
  console.table(rows);
  const [single, batched] = rows;
  console.log(`batched / single: ${(batched['requests/s'] / single['requests/s']).toFixed(1)}x`);
}
