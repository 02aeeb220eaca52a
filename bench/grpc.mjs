// Search requests/s over gRPC and over HTTP against the same irserve app, in the same run.
//
//   npm run build && node bench/grpc.mjs [--duration 5] [--concurrency 64]
//
// The server (HTTP and gRPC on one app: one registry, one cache) runs in a child process. This
// process drives it with the same closed loop for both transports: `concurrency` calls in flight,
// each starting the next when it ends. HTTP uses an undici pool of `concurrency` keep-alive
// connections; gRPC one channel (HTTP/2 multiplexes the calls), as a RoutIR gRPC client does.
// A bare grpc-js server answering Search with a constant runs first, as the ceiling of gRPC in
// Node on the machine (what irserve's gRPC layer could reach at best).
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Pool, request } from 'undici';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '64' },
    role: { type: 'string' },
  },
});
const duration = Number(values.duration) * 1000;
const concurrency = Number(values.concurrency);

class ConstSearch {
  async searchBatch(requests) {
    return requests.map(({ limit }) => {
      const out = {};
      for (let i = 0; i < Math.min(limit, 10); i++) out[`doc${i}`] = 10 - i;
      return out;
    });
  }
}

async function serve() {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const app = await createApp(
    {
      services: [
        { name: 'cached', engine: 'ConstSearch', max_wait_time: 0 },
        { name: 'uncached', engine: 'ConstSearch', cache: -1, max_wait_time: 0 },
      ],
    },
    {
      logger: pino({ level: 'warn' }),
      engines: [ConstSearch],
      interactive: false,
      grpc: { port: 0 },
    },
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const avail = await (await request(`${url}/avail`)).body.json();
  return { url, grpcPort: avail.grpc_port };
}

/** The ceiling: a bare grpc-js server with the same service answering Search with a constant. */
async function servePlainGrpc() {
  const grpc = await import('@grpc/grpc-js');
  const { loadRoutirProto } = await import('../packages/irserve/dist/transports/grpc/proto.js');
  const { service } = await loadRoutirProto();
  const server = new grpc.Server();
  const answer = { query: 'q', scores: { doc0: 10, doc1: 9 }, service: 'plain', timestamp: 0 };
  server.addService(service, { Search: (_call, callback) => callback(null, answer) });
  const grpcPort = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
  return { grpcPort };
}

function startServer(role) {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url).pathname, ['--role', role], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (address) => resolve({ ...address, child }));
    child.once('error', reject);
  });
}

/** Runs `call` in `concurrency` closed loops for `duration` ms; requests/s and latency. */
async function closedLoop(call) {
  const latencies = [];
  let errors = 0;
  const end = performance.now() + duration;
  const worker = async (i) => {
    for (let n = 0; performance.now() < end; n++) {
      const started = performance.now();
      try {
        await call(`q${(i * 7919 + n) % 1000}`);
        latencies.push(performance.now() - started);
      } catch {
        errors++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    rps: Math.round(latencies.length / seconds),
    p50: Number(at(0.5).toFixed(2)),
    p99: Number(at(0.99).toFixed(2)),
    errors,
  };
}

async function grpcClient(port) {
  const grpc = await import('@grpc/grpc-js');
  const { loadRoutirProto } = await import('../packages/irserve/dist/transports/grpc/proto.js');
  const { Client } = await loadRoutirProto();
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const search = (service) => (query) =>
    new Promise((resolve, reject) =>
      client.Search({ service, query, limit: 10 }, (error, answer) =>
        error ? reject(error) : resolve(answer),
      ),
    );
  return { search, close: () => client.close() };
}

function httpClient(url) {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const search = (service) => async (query) => {
    const response = await pool.request({
      method: 'POST',
      path: '/search',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ service, query, limit: 10 }),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(text);
    return JSON.parse(text);
  };
  return { search, close: () => pool.close() };
}

async function main() {
  const plain = await startServer('plain-grpc');
  const plainClient = await grpcClient(plain.grpcPort);
  const rows = [];
  const plainCall = plainClient.search('plain');
  await Promise.all(Array.from({ length: concurrency }, (_, i) => plainCall(`warm${i}`)));
  rows.push({
    transport: 'gRPC, bare grpc-js server',
    service: '-',
    concurrency,
    ...(await closedLoop(plainCall)),
  });
  plainClient.close();
  plain.child.kill('SIGTERM');
  const server = await startServer('server');
  const grpc = await grpcClient(server.grpcPort);
  const http = httpClient(server.url);
  for (const service of ['cached', 'uncached']) {
    // A short warm-up per transport so connection set-up and JIT are not measured.
    for (const [transport, client] of [
      ['HTTP', http],
      ['gRPC', grpc],
    ]) {
      const call = client.search(service);
      await Promise.all(Array.from({ length: concurrency }, (_, i) => call(`warm${i}`)));
      rows.push({ transport, service, concurrency, ...(await closedLoop(call)) });
    }
  }
  console.table(rows);
  grpc.close();
  await http.close();
  server.child.kill('SIGTERM');
}

if (values.role === 'server') {
  process.send(await serve());
} else if (values.role === 'plain-grpc') {
  process.send(await servePlainGrpc());
} else {
  await main();
}
