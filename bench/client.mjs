// What @irserve/client costs over a bare fetch, and what gRPC costs against HTTP, side by side
// on the same server in the same run: a cache-hit /search (ten scores), so the server's work is
// small and the client's share shows.
//
//   npm run build && node bench/client.mjs [--requests 3000] [--concurrency 1,16] [--rounds 3]
//
// The server runs in a child process (so client and server do not share one event loop).
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { HttpClient } from '../packages/client/dist/index.js';
import { GrpcClient } from '../packages/client/dist/grpc.js';
import { median } from './lib/median.mjs';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '1,16' },
    rounds: { type: 'string', default: '3' },
    role: { type: 'string' },
  },
});

class ConstSearch {
  async searchBatch(requests) {
    return requests.map(() =>
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`d${i}`, 10 - i])),
    );
  }
}

if (values.role === 'server') {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const app = await createApp(
    { services: [{ name: 'const', engine: 'ConstSearch', max_wait_time: 0 }] },
    { engines: [ConstSearch], extras: false, logger: pino({ level: 'warn' }), grpc: { port: 0 } },
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const avail = await (await fetch(`${url}/avail`)).json();
  process.send({ url, grpc: `127.0.0.1:${avail.grpc_port}` });
} else {
  const server = fork(new URL(import.meta.url).pathname, ['--role', 'server']);
  const { url, grpc } = await new Promise((resolve) => server.once('message', resolve));
  const body = { service: 'const', query: 'wing flutter', limit: 10 };
  const http = new HttpClient({ baseUrl: url });
  const grpcClient = new GrpcClient({ target: grpc });
  const cases = {
    'fetch + JSON.parse (no client)': async () => {
      const response = await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return response.json();
    },
    'HttpClient.search': () => http.search(body),
    'GrpcClient.search': () => grpcClient.search(body),
  };
  const total = Number(values.requests);
  const rows = [];
  for (const concurrency of values.concurrency.split(',').map(Number)) {
    for (const [name, call] of Object.entries(cases)) {
      for (let i = 0; i < 200; i += 1) await call(); // warm-up, and the cache entry
      const rates = [];
      for (let round = 0; round < Number(values.rounds); round += 1) {
        let next = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < total) {
              next += 1;
              await call();
            }
          }),
        );
        rates.push(total / ((performance.now() - started) / 1000));
      }
      const rate = median(rates);
      rows.push({
        concurrency,
        case: name,
        'requests/s': Math.round(rate),
        'us/request': Math.round((1e6 / rate) * concurrency),
      });
    }
  }
  console.table(rows);
  await grpcClient.close();
  server.kill('SIGTERM');
}
