// Relayed /search through a front versus the same call made directly to the remote, side by side.
//
//   npm run build && node bench/federation.mjs [--duration 5] [--connections 64]
//
// The remote and the front each run in their own child process; autocannon drives both from here.
// Caches are off on both sides so every request really crosses the relay.
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    role: { type: 'string' },
    remote: { type: 'string' },
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
  return new Promise((resolve) => proc.once('message', ({ url }) => resolve({ url, proc })));
}

async function load(url) {
  const result = await autocannon({
    url: `${url}/search`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ service: 'const', query: 'neural retrieval', limit: 10 }),
    connections: Number(values.connections),
    duration: Number(values.duration),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

if (values.role === 'remote') {
  process.send({
    url: await serve({
      services: [{ name: 'const', engine: 'ConstSearch', cache: -1, max_wait_time: 0 }],
    }),
  });
} else if (values.role === 'front') {
  process.send({ url: await serve({ server_imports: [values.remote], relay_cache: -1 }) });
} else {
  const remote = await child('remote');
  const front = await child('front', ['--remote', remote.url]);
  const direct = await load(remote.url);
  const relayed = await load(front.url);
  console.log(`/search, ${values.connections} connections, ${values.duration} s each, caches off`);
  console.table({
    'direct to remote': {
      'requests/s': Math.round(direct.rps),
      'p50 ms': direct.p50,
      'p99 ms': direct.p99,
      errors: direct.errors,
    },
    'through the front': {
      'requests/s': Math.round(relayed.rps),
      'p50 ms': relayed.p50,
      'p99 ms': relayed.p99,
      errors: relayed.errors,
      'vs direct': `${((100 * relayed.rps) / direct.rps).toFixed(0)}%`,
      'added p50 ms': relayed.p50 - direct.p50,
    },
  });
  remote.proc.kill();
  front.proc.kill();
}
