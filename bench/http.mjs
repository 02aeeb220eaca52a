// HTTP throughput of irserve against a plain node:http JSON server, run side by side.
//
//   npm run build && node bench/http.mjs [--duration 5] [--rounds 3] [--pin] [--together] [--idle]
//
// --idle: only the idle-latency case (one client, one request at a time, uncached): irserve with
// the default max_wait_time (0.1 s, adaptive batching) against max_wait_time 0 and plain node:http.
//
// Each server runs in its own child process; autocannon drives it from this process.
// Prints requests/s and p50/p99 latency for each case. --together: the cache-hit comparison
// head to head instead (see `headToHead`).
import { fork, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median, medianRun } from './lib/median.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    role: { type: 'string' },
    pin: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    together: { type: 'boolean', default: false },
    idle: { type: 'boolean', default: false },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);

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

/** An engine that takes 2 ms per batch (a small model on an idle GPU). */
class TwoMsSearch {
  async searchBatch(requests) {
    await new Promise((r) => setTimeout(r, 2));
    return requests.map(() => ({ ...TEN_SCORES }));
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
        // Idle latency: the default max_wait_time (0.1 s) against none, with a 0 ms and a 2 ms engine.
        { name: 'idle-default-wait', engine: 'ConstSearch', cache: -1 },
        { name: 'idle-2ms-default-wait', engine: 'TwoMsSearch', cache: -1 },
        { name: 'idle-2ms-no-wait', engine: 'TwoMsSearch', cache: -1, max_wait_time: 0 },
      ],
    },
    {
      logger: pino({ level: 'warn' }),
      engines: [ConstSearch, SleepSearch, TwoMsSearch],
      interactive: false,
    },
  );
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** The least a JSON server does per request: read and parse the body, build and serialize an answer. */
async function servePlain() {
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      const { query } = JSON.parse(data || '{}');
      const body = JSON.stringify({
        cached: true,
        processed: true,
        query,
        scores: TEN_SCORES,
        service: 'plain',
        timestamp: Date.now() / 1000,
      });
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
  // A parent that dies (or is interrupted) takes its servers with it.
  process.on('disconnect', () => process.exit(0));
  // CPU time the server has used, so the parent can charge each run its CPU per request.
  process.on('message', () => process.send({ cpu: process.cpuUsage() }));
  process.send({ url });
} else {
  if (values.pin) spawnSync('taskset', ['-apc', '0', String(process.pid)], { stdio: 'ignore' });
  await main();
}

function startServer(role) {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url).pathname, ['--role', role], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // --pin: the server gets CPU 1 to itself and the load generator CPU 0 (Linux `taskset`),
    // so every server is measured on one whole core instead of competing with autocannon.
    if (values.pin) spawnSync('taskset', ['-apc', '1', String(child.pid)], { stdio: 'ignore' });
    child.once('message', ({ url }) => resolve({ url, child }));
    child.once('error', reject);
  });
}

/** Microseconds of CPU (user + system) the server process has used so far. */
function serverCpu(server) {
  return new Promise((resolve) => {
    server.child.once('message', ({ cpu }) => resolve(cpu.user + cpu.system));
    server.child.send('cpu');
  });
}

/** autocannon's result for `connections` clients posting `body` to the server's /search. */
function fire(server, connections, body) {
  return autocannon({
    url: `${server.url}/search`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections,
    duration,
  });
}

async function load(server, connections, body) {
  const cpuBefore = await serverCpu(server);
  const result = await fire(server, connections, body);
  const cpu = (await serverCpu(server)) - cpuBefore;
  return {
    rps: result.requests.average,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

/**
 * Runs every case `rounds` times, interleaved (plain, Fastify, hit, miss, plain, ...), so slow
 * phases of a shared machine hit all cases alike; reports each case's median run, and its
 * ratio to plain as the median of the per-round ratios.
 */
async function compare(servers, connections, query) {
  const cases = [
    ['plain node:http JSON', servers.plain, 'plain'],
    ['minimal Fastify route (control)', servers.fastify, 'fastify'],
    ['irserve /search cache hit', servers.irserve, 'cached'],
    ['irserve /search no cache', servers.irserve, 'uncached'],
  ];
  const runs = cases.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, server, service]] of cases.entries()) {
      runs[i].push(await load(server, connections, { service, ...query }));
    }
  }
  return cases.map(([name], i) => {
    const mid = medianRun(runs[i], (r) => r.rps);
    const ratios = runs[i].map((r, round) => r.rps / runs[0][round].rps);
    const cpuRatios = runs[i].map((r, round) => runs[0][round].cpuPerRequest / r.cpuPerRequest);
    const { rps, p50, p99, errors } = mid;
    return {
      case: name,
      connections,
      rps,
      p50,
      p99,
      errors,
      'vs plain': i === 0 ? '' : `${(100 * median(ratios)).toFixed(0)}%`,
      'CPU µs/req': median(runs[i].map((r) => r.cpuPerRequest)).toFixed(1),
      'vs plain, CPU': i === 0 ? '' : `${(100 * median(cpuRatios)).toFixed(0)}%`,
    };
  });
}

/**
 * --together: plain, the Fastify control and the irserve cache hit share one core (all pinned to
 * CPU 1) and are loaded at the same time, 64 connections each. Each server then gets the same
 * share of the core through the same phases of the machine, so the ratio of their requests/s is
 * the ratio of their CPU cost per request, without the run-to-run swings of separate runs. The
 * first round warms up and is not counted; "vs plain" is the median of the per-round ratios.
 */
async function headToHead(servers, query) {
  const cases = [
    ['plain node:http JSON', servers.plain, 'plain'],
    ['minimal Fastify route (control)', servers.fastify, 'fastify'],
    ['irserve /search cache hit', servers.irserve, 'cached'],
  ];
  const runs = cases.map(() => []);
  for (let round = 0; round <= rounds; round++) {
    const results = await Promise.all(
      cases.map(([, server, service]) => fire(server, 64, { service, ...query })),
    );
    if (round > 0) results.forEach((result, i) => runs[i].push(result.requests.average));
  }
  return cases.map(([name], i) => ({
    case: `${name}, head to head`,
    connections: 64,
    rps: median(runs[i]),
    'vs plain':
      i === 0 ? '' : `${(100 * median(runs[i].map((rps, r) => rps / runs[0][r]))).toFixed(0)}%`,
    'per round': runs[i].map((rps, r) => `${((100 * rps) / runs[0][r]).toFixed(0)}%`).join(' '),
  }));
}

/**
 * One client, one request at a time, every query new (no cache): p50 and p99 in ms of `n`
 * requests after 20 of warm-up. `service` undefined: the plain server.
 */
async function idleLatency(server, service, n = 400) {
  const times = [];
  for (let i = 0; i < n + 20; i++) {
    const body = JSON.stringify({ service: service ?? 'plain', query: `idle ${i}`, limit: 10 });
    const started = performance.now();
    const response = await fetch(`${server.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await response.arrayBuffer();
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

/** The idle-latency table: irserve's uncached /search at one connection against its baselines. */
async function idleCases(servers) {
  const cases = [
    ['plain node:http JSON (transport only)', servers.plain, undefined, 0],
    ['irserve, 0 ms engine, max_wait_time 0', servers.irserve, 'uncached', 0],
    ['irserve, 0 ms engine, max_wait_time 0.1 (default)', servers.irserve, 'idle-default-wait', 0],
    ['irserve, 2 ms engine, max_wait_time 0', servers.irserve, 'idle-2ms-no-wait', 2],
    [
      'irserve, 2 ms engine, max_wait_time 0.1 (default)',
      servers.irserve,
      'idle-2ms-default-wait',
      2,
    ],
  ];
  const rows = [];
  for (const [name, server, service, engineMs] of cases) {
    const { p50, p99 } = await idleLatency(server, service);
    rows.push({
      case: name,
      'p50 ms': p50.toFixed(2),
      'p99 ms': p99.toFixed(2),
      'p50 - engine ms': (p50 - engineMs).toFixed(2),
    });
  }
  return rows;
}

async function main() {
  if (values.together && !values.pin) throw new Error('--together needs --pin (one shared core)');
  const servers = {
    plain: await startServer('plain'),
    irserve: await startServer('irserve'),
    fastify: await startServer('fastify'),
  };
  if (values.together) {
    console.table(await headToHead(servers, { query: 'neural retrieval', limit: 10 }));
    for (const server of Object.values(servers)) server.child.kill();
    return;
  }
  const { plain, irserve, fastify } = servers;
  if (values.idle) {
    console.table(await idleCases(servers));
    for (const server of Object.values(servers)) server.child.kill();
    return;
  }
  const idleRows = await idleCases(servers);
  const rows = [];
  const query = { query: 'neural retrieval', limit: 10 };
  for (const connections of [1, 16, 64]) rows.push(...(await compare(servers, connections, query)));
  const sleepy = await load(irserve, 256, { service: 'sleepy', ...query });
  rows.push({
    case: 'irserve 20 ms/batch, batch 32',
    connections: 256,
    rps: sleepy.rps,
    p50: sleepy.p50,
    p99: sleepy.p99,
    errors: sleepy.errors,
    'vs plain': `${((100 * sleepy.rps) / 1600).toFixed(0)}% of 1,600 ceiling`,
  });
  plain.child.kill();
  irserve.child.kill();
  fastify.child.kill();
  console.table(rows);
  console.log('Idle latency (one client, uncached, sequential):');
  console.table(idleRows);
}
