// HTTP throughput of irserve against a plain node:http JSON server, run side by side.
//
//   npm run build && node bench/http.mjs [--duration 5]
//
// Each server runs in its own child process; autocannon drives it from this process.
// Prints requests/s and p50/p99 latency for each case.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, role: { type: 'string' } },
});
const duration = Number(values.duration);

// Every server answers the same envelope with the same ten scores, so bodies are equal in size.
const TEN_SCORES = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`doc${i}`, 10 - i]));

class ConstSearch {
  async searchBatch(requests) {
    return requests.map(({ limit }) => {
      const out = {};
      for (let i = 0; i < Math.min(limit, 10); i++) out[`doc${i}`] = 10 - i;
      return out;
    });
  }
}

class SleepSearch {
  async searchBatch(requests) {
    await new Promise((r) => setTimeout(r, 20));
    return requests.map(() => ({ doc0: 1 }));
  }
}

async function serveIrserve() {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const app = await createApp(
    {
      services: [
        { name: 'cached', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'uncached', engine: 'ConstSearch', cache: -1, max_wait_time: 0 },
        { name: 'sleepy', engine: 'SleepSearch', cache: -1, batch_size: 32, max_wait_time: 0.1 },
      ],
    },
    { logger: pino({ level: 'warn' }), engines: [ConstSearch, SleepSearch], interactive: false },
  );
  return app.listen({ port: 0, host: '127.0.0.1' });
}

async function servePlain() {
  const body = JSON.stringify({
    cached: true,
    processed: true,
    query: 'q',
    scores: TEN_SCORES,
    service: 'plain',
    timestamp: 0,
  });
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      JSON.parse(data || '{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${server.address().port}`;
}

/** Control: the smallest Fastify route answering the same JSON, to separate Fastify's cost from irserve's. */
async function serveFastify() {
  const { default: Fastify } = await import('fastify');
  const server = Fastify();
  const body = {
    cached: true,
    processed: true,
    query: 'q',
    scores: TEN_SCORES,
    service: 'fastify',
    timestamp: 0,
  };
  server.post('/search', async () => body);
  return server.listen({ port: 0, host: '127.0.0.1' });
}

if (values.role) {
  const url =
    values.role === 'plain'
      ? await servePlain()
      : values.role === 'fastify'
        ? await serveFastify()
        : await serveIrserve();
  process.send({ url });
} else {
  await main();
}

function startServer(role) {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url).pathname, ['--role', role], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', ({ url }) => resolve({ url, child }));
    child.once('error', reject);
  });
}

async function load(url, connections, body) {
  const result = await autocannon({
    url: `${url}/search`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections,
    duration,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function main() {
  const plain = await startServer('plain');
  const irserve = await startServer('irserve');
  const fastify = await startServer('fastify');
  const rows = [];
  const query = { query: 'neural retrieval', limit: 10 };
  for (const connections of [1, 16, 64]) {
    const base = await load(plain.url, connections, { service: 'plain', ...query });
    rows.push({ case: 'plain node:http JSON', connections, ...base });
    const minimal = await load(fastify.url, connections, { service: 'fastify', ...query });
    rows.push({
      case: 'minimal Fastify route (control)',
      connections,
      ...minimal,
      'vs plain': `${((100 * minimal.rps) / base.rps).toFixed(0)}%`,
    });
    const hit = await load(irserve.url, connections, { service: 'cached', ...query });
    rows.push({
      case: 'irserve /search cache hit',
      connections,
      ...hit,
      'vs plain': `${((100 * hit.rps) / base.rps).toFixed(0)}%`,
    });
    const miss = await load(irserve.url, connections, { service: 'uncached', ...query });
    rows.push({
      case: 'irserve /search no cache',
      connections,
      ...miss,
      'vs plain': `${((100 * miss.rps) / base.rps).toFixed(0)}%`,
    });
  }
  const sleepy = await load(irserve.url, 256, { service: 'sleepy', ...query });
  rows.push({
    case: 'irserve 20 ms/batch, batch 32',
    connections: 256,
    ...sleepy,
    'vs plain': `${((100 * sleepy.rps) / 1600).toFixed(0)}% of 1,600 ceiling`,
  });
  plain.child.kill();
  irserve.child.kill();
  fastify.child.kill();
  console.table(rows);
}
