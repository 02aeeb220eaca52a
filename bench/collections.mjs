// Collections: JSONL offset-map build against `wc -l` on the same file (warm page cache), map
// reload, map memory, random /content lookups at 1 and 64 clients on a real socket, and sharded
// gzip lookup latency (decompressed-once sidecar) against re-inflating the shard from its start.
//
//   npm run build && node bench/collections.mjs [--size-mib 1024] [--gzip-mib 256] [--duration 5]
//
// Files are written to a temp dir and deleted at the end. Each measured part runs in its own
// child process so RSS figures belong to that part only.
import { execFileSync, fork } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createGzip, createGunzip } from 'node:zlib';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    'size-mib': { type: 'string', default: '1024' },
    'gzip-mib': { type: 'string' },
    duration: { type: 'string', default: '5' },
    role: { type: 'string' },
    dir: { type: 'string' },
    docs: { type: 'string' },
  },
});
const dist = new URL('../packages/irserve/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(0);
const silentLogger = async () => (await import('pino')).pino({ level: 'silent' });

/** A document of about 350 bytes (MS MARCO passage size). */
function doc(i) {
  const words = `passage ${i} about retrieval and ranking with some text to make it realistic `;
  return JSON.stringify({ id: `doc${i}`, title: `Title ${i}`, text: words.repeat(4) }) + '\n';
}

async function generate(path, bytes) {
  const out = createWriteStream(path);
  let written = 0;
  let i = 0;
  while (written < bytes) {
    let chunk = '';
    while (chunk.length < 4 * 1024 * 1024 && written + chunk.length < bytes) chunk += doc(i++);
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
  return i;
}

function child(role, args) {
  return new Promise((resolve, reject) => {
    const proc = fork(new URL(import.meta.url), ['--role', role, ...args], { stdio: 'inherit' });
    proc.on('message', (m) => resolve({ proc, message: m }));
    proc.on('exit', (code) => code !== 0 && reject(new Error(`${role} exited with ${code}`)));
  });
}

async function roleBuild(dir) {
  const { buildOffsetMap } = await load('collections/offset-map/build.js');
  const { writeOffsetMap } = await load('collections/offset-map/codec.js');
  const path = join(dir, 'corpus.jsonl');
  const info = await stat(path);
  const rss0 = process.memoryUsage().rss;
  let t = performance.now();
  const { map } = await buildOffsetMap(path, 'id');
  const buildMs = performance.now() - t;
  const rss1 = process.memoryUsage().rss;
  t = performance.now();
  const handle = await open(join(dir, 'corpus.offsetmap'), 'w');
  await writeOffsetMap(handle, map, { size: info.size, mtimeMs: info.mtimeMs, idField: 'id' });
  await handle.close();
  const writeMs = performance.now() - t;
  const mapBytes = (await stat(join(dir, 'corpus.offsetmap'))).size;
  process.send({
    buildMs,
    writeMs,
    docs: map.size,
    rssDelta: rss1 - rss0,
    maxRss: process.resourceUsage().maxRSS * 1024,
    mapBytes,
  });
  process.disconnect();
}

async function roleReload(dir) {
  const { readOffsetMap } = await load('collections/offset-map/codec.js');
  const info = await stat(join(dir, 'corpus.jsonl'));
  const rss0 = process.memoryUsage().rss;
  const t = performance.now();
  const map = await readOffsetMap(join(dir, 'corpus.offsetmap'), {
    size: info.size,
    mtimeMs: info.mtimeMs,
    idField: 'id',
  });
  process.send({
    reloadMs: performance.now() - t,
    docs: map?.size,
    rssDelta: process.memoryUsage().rss - rss0,
  });
  process.disconnect();
}

async function roleServer(dir) {
  const { createCollections, collectionConfigSchema } = await load('collections/index.js');
  const { contentRoutes } = await load('transports/http/routes/content.js');
  const Fastify = (await import('fastify')).default;
  const config = collectionConfigSchema.parse({
    name: 'docs',
    views: {
      text: { source: { source: 'text_jsonl', doc_path: 'corpus.jsonl', cache_dir: 'maps' } },
    },
    cache: 0,
  });
  const { content, catalog } = await createCollections([config], {
    logger: await silentLogger(),
    cacheDir: dir,
    interactive: false,
    baseDir: dir,
  });
  await content.open();
  const server = Fastify();
  contentRoutes(server, { content, collections: catalog });
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  process.send({ address });
}

async function cannon(url, connections, docs, duration) {
  const result = await autocannon({
    url: `${url}/content`,
    connections,
    duration,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            collection: 'docs',
            id: `doc${Math.floor(Math.random() * docs)}`,
          }),
        }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function gzipPart(dir, bytes) {
  const { GzipShardReader } = await load('collections/readers/gzip-shards.js');
  const { defaultIdParser } = await load('collections/readers/gzip-id.js');
  const plain = join(dir, 'msmarco_v2.1_doc_segmented_00.json');
  const out = createWriteStream(plain);
  const ids = [];
  let offset = 0;
  for (let i = 0; offset < bytes; i++) {
    const id = `msmarco_v2.1_doc_00_${i}#0_${offset}`;
    const line =
      JSON.stringify({ docid: id, title: `T${i}`, segment: 'segment text '.repeat(25) }) + '\n';
    ids.push(id);
    offset += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
  await pipeline(
    createReadStream(plain),
    createGzip({ level: 1 }),
    createWriteStream(`${plain}.gz`),
  );
  await rm(plain);
  const reader = new GzipShardReader(
    {
      pattern: join(dir, 'msmarco_v2.1_doc_segmented_{shard}.json.gz'),
      idField: 'docid',
      loadParser: async () => defaultIdParser,
      numWorkers: 32,
      forceLoadAll: false,
      cacheDir: undefined,
    },
    {
      logger: await silentLogger(),
      interactive: false,
      userCacheDir: join(dir, 'user'),
      isWritable: async () => true,
    },
  );
  let t = performance.now();
  await reader.open();
  const prepareMs = performance.now() - t;
  const latencies = [];
  for (let i = 0; i < 2000; i++) {
    const id = ids[Math.floor(Math.random() * ids.length)];
    t = performance.now();
    await reader.getLine(id);
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  // What a reader without an access index does: inflate from the shard start to the offset.
  const target = Number(ids.at(-1).split('_')[5]);
  t = performance.now();
  let seen = 0;
  for await (const chunk of createReadStream(`${plain}.gz`).pipe(createGunzip())) {
    seen += chunk.length;
    if (seen > target) break;
  }
  const naiveMs = performance.now() - t;
  await reader.close();
  return {
    docs: ids.length,
    prepareMs,
    p50: latencies[1000],
    p99: latencies[1980],
    naiveLastMs: naiveMs,
  };
}

async function main() {
  const sizeMiB = Number(values['size-mib']);
  const gzipMiB = Number(values['gzip-mib'] ?? Math.min(256, Math.max(16, sizeMiB / 4)));
  const duration = Number(values.duration);
  const dir = await mkdtemp(join(tmpdir(), 'irserve-bench-coll-'));
  try {
    const path = join(dir, 'corpus.jsonl');
    const docs = await generate(path, sizeMiB * 1024 * 1024);
    execFileSync('wc', ['-l', path]);
    let t = performance.now();
    execFileSync('wc', ['-l', path]);
    const wcMs = performance.now() - t;
    const build = (await child('build', ['--dir', dir])).message;
    const reload = (await child('reload', ['--dir', dir])).message;
    const { proc, message } = await child('server', ['--dir', dir]);
    const one = await cannon(message.address, 1, docs, duration);
    const many = await cannon(message.address, 64, docs, duration);
    proc.kill();
    const gzip = await gzipPart(dir, gzipMiB * 1024 * 1024);
    const perGiB = (ms) => ((ms / 1000) * 1024) / sizeMiB;
    console.log(`corpus: ${sizeMiB} MiB, ${docs} documents`);
    console.log(
      `offset map build: ${(build.buildMs / 1000).toFixed(2)} s (${perGiB(build.buildMs).toFixed(2)} s/GiB) + write ${(build.writeMs / 1000).toFixed(2)} s; wc -l: ${(wcMs / 1000).toFixed(2)} s`,
    );
    console.log(
      `map: ${mib(build.mapBytes)} MiB on disk, build RSS +${mib(build.rssDelta)} MiB (peak RSS ${mib(build.maxRss)} MiB)`,
    );
    console.log(`reload: ${reload.reloadMs.toFixed(0)} ms, RSS +${mib(reload.rssDelta)} MiB`);
    console.log(
      `/content random lookups, 1 client: ${one.rps.toFixed(0)} req/s (p50 ${one.p50} ms, p99 ${one.p99} ms, errors ${one.errors})`,
    );
    console.log(
      `/content random lookups, 64 clients: ${many.rps.toFixed(0)} req/s (p50 ${many.p50} ms, p99 ${many.p99} ms, errors ${many.errors})`,
    );
    console.log(
      `gzip shard ${gzipMiB} MiB (${gzip.docs} docs): prepare ${(gzip.prepareMs / 1000).toFixed(2)} s; lookup p50 ${gzip.p50.toFixed(3)} ms, p99 ${gzip.p99.toFixed(3)} ms; inflating from the start to the last doc: ${gzip.naiveLastMs.toFixed(0)} ms`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const roles = { build: roleBuild, reload: roleReload, server: roleServer };
if (values.role) await roles[values.role](values.dir);
else await main();
