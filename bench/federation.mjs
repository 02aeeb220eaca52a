// Relayed /search through a front versus the same call made directly to the remote, side by side.
//
//   npm run build && node bench/federation.mjs [--duration 5] [--connections 64] [--rounds 3]
//       [--pin]
//
// --rounds: direct and relayed alternate that many times; the median run of each is shown, and
// the ratio is the median of the per-round ratios. --pin (Linux taskset): autocannon on CPU 0,
// the front and the remote on CPU 1, so the servers never compete with the load generator.
//
// The remote and the front each run in their own child process; autocannon drives both from here.
// Caches are off on both sides and every request has its own query, so every request really
// crosses the relay and is computed by the remote.
import { fork, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median, medianRun } from './lib/median.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    role: { type: 'string' },
    remote: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    pin: { type: 'boolean', default: false },
  },
});

class ConstSearch {
  async searchBatch(requests) {
    return requests.map(() =>
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`doc${i}`, 10 - i])),
    );
  }
}

async function serve(config) {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const app = await createApp(config, {
    logger: pino({ level: 'warn' }),
    engines: [ConstSearch],
    interactive: false,
  });
  return app.listen({ port: 0, host: '127.0.0.1' });
}

function child(role, extra = []) {
  const proc = fork(new URL(import.meta.url).pathname, ['--role', role, ...extra], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (values.pin) spawnSync('taskset', ['-apc', '1', String(proc.pid)], { stdio: 'ignore' });
  return new Promise((resolve) => proc.once('message', ({ url }) => resolve({ url, proc })));
}

let next = 0;

async function load(url, connections) {
  const result = await autocannon({
    url: `${url}/search`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // A distinct query per request: identical concurrent requests would be computed once by
    // the batch processors (and coalesced by the relay), flattering both paths.
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            service: 'const',
            query: `neural retrieval ${next++}`,
            limit: 10,
          }),
        }),
      },
    ],
    connections,
    duration: Number(values.duration),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

const rps = (run) => run.rps;

// A parent that dies (or is interrupted) takes its servers with it.
if (values.role) process.on('disconnect', () => process.exit(0));
if (values.role === 'remote') {
  process.send({
    url: await serve({
      services: [{ name: 'const', engine: 'ConstSearch', cache: -1, max_wait_time: 0 }],
    }),
  });
} else if (values.role === 'front') {
  process.send({ url: await serve({ server_imports: [values.remote], relay_cache: -1 }) });
} else {
  if (values.pin) spawnSync('taskset', ['-apc', '0', String(process.pid)], { stdio: 'ignore' });
  const remote = await child('remote');
  const front = await child('front', ['--remote', remote.url]);
  const rows = {};
  for (const connections of [1, Number(values.connections)]) {
    const directRuns = [];
    const relayedRuns = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      directRuns.push(await load(remote.url, connections));
      relayedRuns.push(await load(front.url, connections));
    }
    const direct = medianRun(directRuns, rps);
    const relayed = medianRun(relayedRuns, rps);
    const ratio = median(relayedRuns.map((r, i) => r.rps / directRuns[i].rps));
    // Time per request (1000 / rate) is exact where autocannon's latencies are whole
    // milliseconds; at one connection its difference is the latency the relay adds.
    const added = median(relayedRuns.map((r, i) => 1000 / r.rps - 1000 / directRuns[i].rps));
    const row = (r) => ({
      'requests/s': Math.round(r.rps),
      '1000 / rate, ms': (1000 / r.rps).toFixed(3),
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      errors: r.errors,
    });
    rows[`direct, ${connections} conn.`] = row(direct);
    rows[`through the front, ${connections} conn.`] = {
      ...row(relayed),
      'vs direct': `${(100 * ratio).toFixed(0)}%`,
      'added ms': added.toFixed(3),
    };
  }
  console.log(`/search, ${values.duration} s per run, ${values.rounds} rounds, caches off`);
  console.table(rows);
  remote.proc.kill();
  front.proc.kill();
}
