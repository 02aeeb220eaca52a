// Soak: a long mixed load against one irserve process, its RSS sampled throughout.
//
//   npm run build && node bench/soak.mjs [--requests 100000] [--connections 32]
//   node bench/soak.mjs --requests 1000000      # the long run
//
// The server runs in a child process (so its RSS is its own); autocannon drives it from this
// process with a rotating mix: cache hits, cache misses (every query new, on a cached service,
// so the LRU keeps evicting), two-stage pipelines and content lookups. Prints RSS samples and
// the growth from the end of warm-up (the first fifth of the requests) to the end.
// Target: no error, no growth after warm-up.
import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '32' },
    role: { type: 'string' },
    dir: { type: 'string' },
  },
});

class ConstSearch {
  constructor({ config }) {
    this.offset = config.start ?? 0;
  }
  async searchBatch(requests) {
    return requests.map(({ limit }) => {
      const out = {};
      for (let i = 0; i < Math.min(limit, 20); i++) out[`doc${this.offset + i}`] = 20 - i;
      return out;
    });
  }
}

const DOCS = 1000;

async function serve(dir) {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const app = await createApp(
    {
      services: [
        { name: 'a', engine: 'ConstSearch', cache: 1024 },
        { name: 'b', engine: 'ConstSearch', config: { start: 5 }, cache: 1024 },
      ],
      collections: [
        {
          name: 'docs',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
        },
      ],
      pipeline_cache: 1024,
    },
    {
      logger: pino({ level: 'warn' }),
      engines: [ConstSearch],
      interactive: false,
      cacheDir: join(dir, 'cache'),
    },
  );
  await app.start();
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.send({ url });
  process.on('message', () => process.send({ rss: process.memoryUsage().rss }));
}

function startServer(dir) {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url).pathname, ['--role', 'server', '--dir', dir], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', ({ url }) => resolve({ url, child }));
    child.once('error', reject);
  });
}

const rssOf = (server) =>
  new Promise((resolve) => {
    server.child.once('message', ({ rss }) => resolve(rss));
    server.child.send('rss');
  });

/** The request of number `n` in the rotating mix. */
function mixed(n) {
  const json = (path, body) => ({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  switch (n % 5) {
    case 0:
    case 1:
      return json('/search', { service: 'a', query: `hit ${n % 50}`, limit: 10 });
    case 2:
      return json('/search', { service: 'b', query: `miss ${n}`, limit: 10 });
    case 3:
      return json('/pipeline', { pipeline: '{a, b}RRF%10', query: `pipe ${n % 2000}` });
    default:
      return { method: 'GET', path: `/content/docs/d${n % DOCS}` };
  }
}

async function main() {
  const total = Number(values.requests);
  const dir = await mkdtemp(join(tmpdir(), 'irserve-soak-'));
  const lines = Array.from({ length: DOCS }, (_, i) =>
    JSON.stringify({ id: `d${i}`, text: `text ${i}` }),
  );
  await writeFile(join(dir, 'docs.jsonl'), lines.join('\n') + '\n');
  const server = await startServer(dir);
  let sent = 0;
  let done = 0;
  const samples = [];
  const sampler = setInterval(async () => {
    samples.push({ requests: done, 'RSS MiB': ((await rssOf(server)) / 2 ** 20).toFixed(1) });
  }, 2000);
  const started = performance.now();
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: server.url,
        connections: Number(values.connections),
        amount: total,
        requests: [{ setupRequest: (request) => ({ ...request, ...mixed(sent++) }) }],
      },
      (error, summary) => (error ? reject(error) : resolve(summary)),
    );
    instance.on('response', () => done++);
  });
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  const endRss = (await rssOf(server)) / 2 ** 20;
  server.child.kill();
  await rm(dir, { recursive: true, force: true });
  // RSS saws up and down with garbage collection: compare peaks, not two single samples.
  const after = samples.filter((s) => s.requests >= total / 5).map((s) => Number(s['RSS MiB']));
  const half = Math.ceil(after.length / 2);
  const earlyPeak = Math.max(...after.slice(0, half), 0);
  const latePeak = Math.max(...after.slice(half), endRss);
  const step = Math.max(1, Math.floor(samples.length / 12));
  console.table(samples.filter((_, i) => i % step === 0));
  console.table([
    {
      requests: result.requests.total,
      seconds: seconds.toFixed(0),
      'req/s': (result.requests.total / seconds).toFixed(0),
      errors: result.errors + result.non2xx,
      'peak RSS, 1st half after warm-up (MiB)': earlyPeak.toFixed(1),
      'peak RSS, 2nd half (MiB)': latePeak.toFixed(1),
      growth: `${(((latePeak - earlyPeak) / earlyPeak) * 100).toFixed(1)}%`,
    },
  ]);
}

if (values.role === 'server') await serve(values.dir);
else await main();
