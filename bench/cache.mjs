// Cache-hit /search throughput with the in-memory LRU and with a Redis store, side by side.
//
//   npm run build && node bench/cache.mjs [--duration 5] [--connections 64]
//
// Starts its own redis-server on a free port (Debian package redis-server) and one irserve
// child process serving both services; autocannon drives it from this process.
import { fork, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from './lib/free-port.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    role: { type: 'string' },
    redis: { type: 'string' },
  },
});

class ConstSearch {
  async searchBatch(requests) {
    return requests.map(() =>
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`doc${i}`, 10 - i])),
    );
  }
}

async function serve(redisUrl) {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const app = await createApp(
    {
      services: [
        { name: 'lru', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'redis', engine: 'ConstSearch', max_wait_time: 0, cache_kv_url: redisUrl },
      ],
    },
    { logger: pino({ level: 'warn' }), engines: [ConstSearch], interactive: false },
  );
  return app.listen({ port: 0, host: '127.0.0.1' });
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stdout.on('data', (chunk) => /Ready to accept/.test(chunk.toString()) && resolve());
  });
  return { url: `redis://127.0.0.1:${port}`, child };
}

async function load(url, service) {
  const body = JSON.stringify({ service, query: 'neural retrieval', limit: 10 });
  // Warm the cache first so every measured request is a hit.
  await fetch(`${url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await new Promise((r) => setTimeout(r, 200));
  const result = await autocannon({
    url: `${url}/search`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections: Number(values.connections),
    duration: Number(values.duration),
  });
  // Show that the measured answers really came from the cache.
  const after = await fetch(`${url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const { cached } = await after.json();
  return {
    'answers cached': cached,
    'requests/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

if (values.role === 'server') {
  process.send({ url: await serve(values.redis) });
} else {
  const redis = await startRedis();
  const server = fork(
    new URL(import.meta.url).pathname,
    ['--role', 'server', '--redis', redis.url],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const { url } = await new Promise((resolve) => server.once('message', resolve));
  const rows = { 'in-memory LRU': await load(url, 'lru'), 'Redis store': await load(url, 'redis') };
  console.log(`cache-hit /search, ${values.connections} connections, ${values.duration} s each`);
  console.table(rows);
  server.kill();
  redis.child.kill();
}
