// irserve in front of a back-end engine, against calling the engine directly, side by side:
//
//   npm run build && node bench/backends.mjs [--docs 5000] [--queries 400] [--concurrency 8]
//
// For each back-end this machine can run (PostgreSQL from Debian `postgresql`, Sphinx
// `searchd` from `sphinxsearch`), over the same synthetic corpus: queries/s and p50 latency of
// the driver called directly, of `/search` through irserve (cache off), and of the pipeline
// `{bm25, backend}RRF%100`. Then cache-hit throughput of a Redis Cluster (3 masters) against a
// single Redis. Every server is started here on loopback and stopped at the end.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { pino } from 'pino';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '5000' },
    queries: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
  },
});
const DOCS = Number(values.docs);
const QUERIES = Number(values.queries);
const CONCURRENCY = Number(values.concurrency);

const { createApp } = await import('../packages/irserve/dist/index.js');
const { engines } = await import('../packages/backends/dist/index.js');

// ---- corpus and queries (deterministic) -----------------------------------------------------
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const VOCAB = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`);
const word = () => VOCAB[Math.floor(random() ** 2 * VOCAB.length)];
const corpus = Array.from({ length: DOCS }, (_, i) => ({
  id: `d${i}`,
  text: Array.from({ length: 30 + Math.floor(random() * 40) }, word).join(' '),
}));
const queries = Array.from({ length: QUERIES }, () => `${word()} ${word()} ${word()}`);

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Runs `call` over every query with `CONCURRENCY` in flight; queries/s and p50 ms. */
async function measure(call) {
  for (const q of queries.slice(0, 20)) await call(q); // warm-up
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < queries.length) {
        const q = queries[next++];
        const t = performance.now();
        await call(q);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { qps: queries.length / seconds, p50: latencies[Math.floor(latencies.length / 2)] };
}

async function appFor(service, dir) {
  writeFileSync(join(dir, 'corpus.jsonl'), corpus.map((d) => JSON.stringify(d)).join('\n'));
  const app = await createApp(
    {
      collections: [
        {
          name: 'c',
          views: {
            text: { source: { source: 'text_jsonl', doc_path: join(dir, 'corpus.jsonl') } },
          },
        },
      ],
      services: [
        {
          name: 'bm25',
          engine: 'BM25',
          cache: 0,
          max_wait_time: 0.002,
          config: { collection: 'c' },
        },
        // Back-end calls wait on the network: several batches in flight, like a pool.
        {
          ...service,
          name: 'backend',
          cache: 0,
          max_wait_time: 0.002,
          max_concurrent_batches: CONCURRENCY,
        },
      ],
    },
    {
      logger: pino({ level: 'warn' }),
      engines,
      extras: false,
      interactive: false,
      cacheDir: join(dir, 'cache'),
    },
  );
  await app.start();
  return app;
}

async function through(app, direct) {
  const post = async (url, payload) => {
    const r = await app.http.inject({ method: 'POST', url, payload });
    if (r.statusCode !== 200) throw new Error(r.body);
  };
  const viaIrserve = await measure((query) =>
    post('/search', { service: 'backend', query, limit: 100 }),
  );
  const fused = await measure((query) =>
    post('/pipeline', { pipeline: '{bm25, backend}RRF%100', query, collection: 'c' }),
  );
  return { direct, viaIrserve, fused };
}

// ---- PostgreSQL -----------------------------------------------------------------------------
async function postgres() {
  const root = '/usr/lib/postgresql';
  const bin = existsSync(root)
    ? readdirSync(root)
        .map((v) => join(root, v, 'bin'))
        .find((d) => existsSync(join(d, 'initdb')))
    : undefined;
  if (!bin) return console.log('skipping PostgreSQL: not installed (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
  const owner =
    process.getuid?.() === 0
      ? {
          uid: Number(spawnSync('id', ['-u', 'postgres']).stdout),
          gid: Number(spawnSync('id', ['-g', 'postgres']).stdout),
        }
      : {};
  if (owner.uid !== undefined) chownSync(dir, owner.uid, owner.gid);
  spawnSync(
    join(bin, 'initdb'),
    ['-D', join(dir, 'data'), '-U', 'bench', '--auth=trust', '-E', 'UTF8', '--locale=C'],
    owner,
  );
  const port = await freePort();
  const child = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      join(dir, 'data'),
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
    ],
    { ...owner, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await new Promise((resolve) =>
    child.stderr.on('data', (d) => /ready to accept/.test(String(d)) && resolve()),
  );
  const pool = new pg.Pool({
    host: '127.0.0.1',
    port,
    user: 'bench',
    database: 'postgres',
    max: CONCURRENCY,
  });
  await pool.query(
    "CREATE TABLE docs (id text PRIMARY KEY, text text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED)",
  );
  for (let i = 0; i < corpus.length; i += 500) {
    const part = corpus.slice(i, i + 500);
    await pool.query('INSERT INTO docs (id, text) SELECT * FROM unnest($1::text[], $2::text[])', [
      part.map((d) => d.id),
      part.map((d) => d.text),
    ]);
  }
  await pool.query('CREATE INDEX ON docs USING gin (tsv); ANALYZE docs');
  const sql =
    "SELECT id::text AS id, ts_rank_cd(tsv, q, 0) AS score FROM docs, websearch_to_tsquery('simple'::regconfig, $1) q WHERE tsv @@ q ORDER BY score DESC, id LIMIT 100";
  const direct = await measure((query) => pool.query(sql, [query.split(' ').join(' or ')]));
  const app = await appFor(
    {
      engine: 'Postgres',
      config: {
        host: '127.0.0.1',
        port,
        user: 'bench',
        database: 'postgres',
        table: 'docs',
        tsvector_column: 'tsv',
        ts_config: 'simple',
        pool_size: CONCURRENCY,
      },
    },
    dir,
  );
  // The engine's websearch parser reads words as AND; "or" between them for the same result set as BM25.
  const result = await through(app, direct);
  await app.close();
  await pool.end();
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return result;
}

// ---- Sphinx ---------------------------------------------------------------------------------
async function sphinx() {
  if (spawnSync('searchd', ['--help']).status !== 0)
    return console.log('skipping Sphinx: searchd not installed (apt-get install sphinxsearch)');
  const dir = mkdtempSync(join(tmpdir(), 'bench-sphinx-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 's.conf'),
    `index rt\n{\n type = rt\n path = ${dir}/rt\n rt_field = content\n rt_attr_string = docid\n index_field_lengths = 1\n}\n` +
      `searchd\n{\n listen = 127.0.0.1:${port}:mysql41\n log = ${dir}/log\n query_log = ${dir}/q.log\n pid_file = ${dir}/pid\n binlog_path =\n workers = threads\n}\n`,
  );
  const child = spawn('searchd', ['--config', join(dir, 's.conf'), '--nodetach'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve) =>
    child.stdout.on('data', (d) => /accepting connections/.test(String(d)) && resolve()),
  );
  const pool = mysql.createPool({ host: '127.0.0.1', port, connectionLimit: CONCURRENCY });
  for (let i = 0; i < corpus.length; i += 200) {
    const part = corpus.slice(i, i + 200);
    await pool.query(
      `INSERT INTO rt (id, content, docid) VALUES ${part.map(() => '(?, ?, ?)').join(',')}`,
      part.flatMap((d, j) => [i + j + 1, d.text, d.id]),
    );
  }
  const sql =
    "SELECT docid, WEIGHT() AS score FROM rt WHERE MATCH(?) ORDER BY score DESC LIMIT 100 OPTION ranker=expr('1000000*bm25a(1.2,0.75)')";
  const direct = await measure((query) => pool.query(sql, [`(${query.split(' ').join(' | ')})`]));
  const app = await appFor(
    {
      engine: 'Sphinx',
      config: { port, index: 'rt', id_attribute: 'docid', pool_size: CONCURRENCY },
    },
    dir,
  );
  const result = await through(app, direct);
  await app.close();
  await pool.end();
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  return result;
}

// ---- Redis Cluster against one Redis: cache hits --------------------------------------------
class ConstSearch {
  async searchBatch(requests) {
    return requests.map(() =>
      Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`doc${i}`, 100 - i])),
    );
  }
}

async function redis() {
  if (spawnSync('redis-server', ['--version']).status !== 0)
    return console.log('skipping Redis: redis-server not installed');
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const children = [];
  const start = async (args) => {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        ...args(port),
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    children.push(child);
    while (
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .trim() !== 'PONG'
    )
      await new Promise((r) => setTimeout(r, 50));
    return port;
  };
  const single = await start(() => []);
  const nodes = await Promise.all(
    [0, 1, 2].map(() =>
      start((p) => ['--cluster-enabled', 'yes', '--cluster-config-file', `n-${p}.conf`]),
    ),
  );
  spawnSync('redis-cli', [
    '--cluster',
    'create',
    ...nodes.map((p) => `127.0.0.1:${p}`),
    '--cluster-yes',
  ]);
  while (
    !nodes.every((p) =>
      String(spawnSync('redis-cli', ['-p', String(p), 'cluster', 'info']).stdout).includes(
        'cluster_state:ok',
      ),
    )
  )
    await new Promise((r) => setTimeout(r, 100));
  const url = {
    single: `redis://127.0.0.1:${single}`,
    cluster: `redis+cluster://${nodes.map((p) => `127.0.0.1:${p}`).join(',')}`,
  };
  const rows = {};
  for (const [name, kvUrl] of Object.entries(url)) {
    const app = await createApp(
      { services: [{ name: 'c', engine: 'ConstSearch', max_wait_time: 0, cache_kv_url: kvUrl }] },
      { logger: pino({ level: 'warn' }), engines: [ConstSearch], extras: false },
    );
    await app.start();
    // The store connects in the background: measure once it is up.
    for (let i = 0; i < 200; i++) {
      const health = (await app.http.inject({ method: 'GET', url: '/health' })).json();
      if (health.cache_stores.every((store) => store.state === 'up')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const call = (query) =>
      app.http.inject({
        method: 'POST',
        url: '/search',
        payload: { service: 'c', query, limit: 100 },
      });
    for (const q of queries) await call(q); // fill
    await new Promise((r) => setTimeout(r, 500));
    const hits = (await Promise.all(queries.slice(0, 50).map(call))).filter(
      (r) => r.json().cached,
    ).length;
    rows[name] = { ...(await measure(call)), hits };
    await app.close();
  }
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

const fmt = (m) => `${m.qps.toFixed(0).padStart(7)} q/s  p50 ${m.p50.toFixed(2).padStart(6)} ms`;
console.log(
  `corpus ${DOCS} docs, ${QUERIES} queries of 3 words, ${CONCURRENCY} in flight, top 100\n`,
);
console.log(
  'back-end     direct driver               irserve /search            overhead p50  share   {bm25, backend}RRF%100',
);
for (const [name, run] of [
  ['PostgreSQL', postgres],
  ['Sphinx', sphinx],
]) {
  const r = await run();
  if (!r) continue;
  console.log(
    `${name.padEnd(12)} ${fmt(r.direct)}   ${fmt(r.viaIrserve)}   ${(r.viaIrserve.p50 - r.direct.p50).toFixed(2).padStart(6)} ms  ${((100 * r.viaIrserve.qps) / r.direct.qps).toFixed(0).padStart(4)}%   ${fmt(r.fused)}`,
  );
}
const cache = await redis();
if (cache) {
  console.log('\ncache hits   store                        hits of 50 re-asked');
  for (const [name, m] of Object.entries(cache))
    console.log(`${name.padEnd(12)} ${fmt(m)}   ${m.hits}`);
}
