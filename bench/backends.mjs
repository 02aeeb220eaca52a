// irserve in front of a back-end engine, against calling the engine directly, side by side:
//
//   npm run build && node bench/backends.mjs [--docs 5000] [--queries 400] [--concurrency 8] [--rounds 3]
//     [--latency_rounds 3] [--v8 irserve|node]
//     [--only instant,postgresql,sphinx,redis] [--pin auto|off|BENCH_CPUS/SERVER_CPUS]
//     [--sides direct,search,http,clientFusion,pipeline,httpFusion,httpPipeline,hop] [--phases]
//     (also, not run by default: --sides core,coreFusion,corePipeline)
//
// For each back-end this machine can run (PostgreSQL from Debian `postgresql`, Sphinx
// `searchd` from `sphinxsearch`), over the same synthetic corpus: queries/s and latency of
// the driver called directly, of `/search` through irserve (in process, and over HTTP on
// loopback), and of the pipeline `{bm25, backend}RRF%100` against the same fusion done by the
// caller (in process, and with irserve called over HTTP). The pipeline is written
// `{bm25%100, backend%100}RRF%100`: a search stage fetches 1000 by default, the caller's fusion
// 100. An engine that answers at once (`Instant`) shows irserve's own cost alone. Like with
// like: the direct side sends the very statement the engine builds (its own SQL builder, same
// result depth) on a pool with the engine's settings and size, with the same queries and
// concurrency; every side is warmed up first, and the sides take turns every 50 queries, in a
// new order each turn, so that a change of machine load (or the garbage of the side before)
// hits them alike. Then a pass with one request in flight gives the latency each side adds with
// no queue before it. Then cache-hit throughput of a Redis Cluster (3 masters) against a single
// Redis. Every server is started here on loopback and stopped at the end.
//
// `--phases`: in the pass with one request in flight, also where the time of the sides that go
// through irserve's back-end engine goes: before the engine is entered, in it, and after it
// (medians, ms; two clock reads are added to every engine call); for PostgreSQL, also the
// driver's round trip within the engine's time.
//
// `hop`: no irserve, a plain node:http server on loopback answering 100 scores. Called over HTTP,
// the pipeline makes one hop more in a row than fusion by hand does (the caller reaches irserve
// and the back-end at once; the pipeline reaches irserve, then irserve the back-end), so its
// added p50 with 1 in flight holds that hop, which this side measures on the same machine.
//
// Added p50, share of q/s and added CPU are given over the whole run, then as the median over
// turns of the two sides' difference in the same turn, which a drift of the back-end's queue or
// of the machine's speed during the run does not move.
//
// `--sides core,coreFusion,corePipeline` (not in the defaults): the same calls without the HTTP
// layer, to tell irserve's pipeline machinery from its HTTP work: the back-end's service called in
// process, fusion by hand with BM25's service called in process, and the pipeline runner called
// in process (what `/pipeline` runs once the body is parsed, before the answer is written).
//
// Pinning (`--pin`, default `auto`): as in a deployment, the back-end servers (postgres and
// its workers, searchd, redis-server) run on CPUs of their own and this process (the client
// and irserve) on the others, with `taskset`; every side alike, so the direct side and irserve
// get the same CPUs. `auto` splits the CPUs in two halves (the first for this process) when
// there are at least two and `taskset` exists; `off` pins nothing; `0/1` or `0-3/4-7` names
// them. The pinning is printed with the figures.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { pino } from 'pino';
import { engineTimer, phaseMedians } from './lib/engine-phases.mjs';
import { freePort } from './lib/free-port.mjs';
import { median } from './lib/median.mjs';
import { rrfByHand } from './lib/rrf-by-hand.mjs';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '5000' },
    queries: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    latency_rounds: { type: 'string', default: '3' },
    only: { type: 'string', default: 'instant,postgresql,sphinx,redis' },
    pin: { type: 'string', default: 'auto' },
    sides: {
      type: 'string',
      default: 'direct,search,http,clientFusion,pipeline,httpFusion,httpPipeline,hop',
    },
    v8: { type: 'string', default: 'irserve' },
    phases: { type: 'boolean', default: false },
  },
});
const DOCS = Number(values.docs);
const QUERIES = Number(values.queries);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
/** Rounds of the pass with one request in flight (0: none). */
const LATENCY_ROUNDS = Number(values.latency_rounds);
const LIMIT = 100;
const ONLY = new Set(values.only.split(','));
/** The sides measured (all by default; fewer for a profile of one of them). */
const SIDES = new Set(values.sides.split(','));
/** With `--phases`: the engine calls of the back-end service, timed. */
const TIMER = values.phases ? engineTimer() : undefined;
TIMER?.watchRoundTrips(pg.Client);

/**
 * The CPUs of this process and of the back-end servers (`taskset -c` lists), or undefined when
 * nothing is pinned: `auto` halves the CPUs this process may use.
 */
function pinning(option) {
  if (option === 'off') return undefined;
  if (spawnSync('taskset', ['-V']).status !== 0) {
    if (option === 'auto') return undefined;
    throw new Error('--pin: taskset not found (util-linux)');
  }
  if (option !== 'auto') {
    const [bench, server] = option.split('/');
    if (!/^[\d,-]+$/.test(bench ?? '') || !/^[\d,-]+$/.test(server ?? ''))
      throw new Error(
        `--pin: expected auto, off or BENCH_CPUS/SERVER_CPUS (like 0/1), got "${option}"`,
      );
    return { bench, server };
  }
  const cpus = availableParallelism();
  if (cpus < 2) return undefined;
  const half = Math.floor(cpus / 2);
  const list = (from, to) => (to - from === 1 ? `${from}` : `${from}-${to - 1}`);
  return { bench: list(0, half), server: list(half, cpus) };
}
const PIN = pinning(values.pin);
if (PIN) {
  // -a: every thread of this process (libuv's pool, V8's helpers); later threads inherit it.
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', PIN.bench, String(process.pid)]);
  if (pinned.status !== 0) throw new Error(`taskset failed: ${pinned.stderr}`);
}
/** Spawns a back-end server on the servers' CPUs (when pinned). */
const spawnServer = (command, args, options) =>
  PIN
    ? spawn('taskset', ['-c', PIN.server, command, ...args], options)
    : spawn(command, args, options);

const { createApp, tuneV8ForServing } = await import('../packages/irserve/dist/index.js');
// irserve runs in this process: give it the V8 settings the `irserve` command gives a server
// (every side alike, the direct ones included); `--v8 node` keeps Node's defaults.
if (values.v8 !== 'irserve' && values.v8 !== 'node')
  throw new Error(`--v8: expected irserve or node, got "${values.v8}"`);
const V8_TUNED = values.v8 === 'irserve' && tuneV8ForServing(process.env, process.execArgv);
const { engines } = await import('../packages/backends/dist/index.js');
// The engines' own statement builders and pool settings, so the direct side sends the same thing.
const pgSql = await import('../packages/backends/dist/postgres/sql.js');
const { parsePostgresConfig } = await import('../packages/backends/dist/postgres/config.js');
const { poolConfig } = await import('../packages/backends/dist/postgres/pool-config.js');
const sphinxql = await import('../packages/backends/dist/sphinx/sphinxql.js');
const { parseManticoreConfig } = await import('../packages/backends/dist/sphinx/config.js');

// ---- corpus and queries (deterministic) -----------------------------------------------------
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const VOCAB = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`);
const word = () => VOCAB[Math.floor(random() ** 2 * VOCAB.length)];
const corpus = Array.from({ length: DOCS }, (_, i) => ({
  id: `d${i}`,
  text: Array.from({ length: 30 + Math.floor(random() * 40) }, word).join(' '),
}));
// "or" between the words: PostgreSQL's websearch parser then matches any word, as BM25 and
// Sphinx (operator "or") do, so every side ranks the same kind of result list.
const queries = Array.from({ length: QUERIES }, () => `${word()} or ${word()} or ${word()}`);

/**
 * Runs `call` over `batch` with `inFlight` calls at a time: the latencies (ms), the seconds taken
 * and the CPU seconds this process used (client and irserve; the back-end server's own are not
 * counted, and are the same on every side since it gets the same statements).
 */
async function runBatch(call, batch, inFlight) {
  const latencies = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < batch.length) {
        const q = batch[next++];
        const t = performance.now();
        await call(q);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    latencies,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** Queries taken by every side in turn, so that a change of machine load hits all sides alike. */
const SLICE = 50;

let orderSeed = 11;
/**
 * The sides in a new order for each turn (seeded, so runs repeat): a side pays for part of the
 * garbage of the side before it (a collection its allocations start), so a fixed order would
 * charge the pipeline for fusion by hand's garbage on every turn.
 */
function shuffled(items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    orderSeed = (orderSeed * 1103515245 + 12345) % 2 ** 31;
    const j = orderSeed % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Measures the sides (name -> call) after one warm-up pass each: `rounds` passes over the
 * queries with `inFlight` calls at a time, the sides taking turns every `SLICE` queries. Per
 * side: q/s, p50 and p99 (ms), this process's CPU milliseconds per query (unlike latency,
 * hardly moved by other jobs on a shared machine, so the difference between two sides is the
 * work irserve adds), and each turn's q/s and CPU (`turns`): this machine's CPUs change speed
 * by a fifth from one second to the next, and a turn's sides see the same speed, so the
 * median over turns of one side's q/s against another's is the steadier figure.
 */
async function compare(sides, { inFlight = CONCURRENCY, rounds = ROUNDS } = {}) {
  const entries = Object.entries(sides);
  for (const [, call] of entries) await runBatch(call, queries, inFlight); // warm connections and caches
  const totals = new Map(
    entries.map(([name]) => [name, { latencies: [], seconds: 0, cpuSeconds: 0, turns: [] }]),
  );
  for (let round = 0; round < rounds; round++)
    for (let at = 0; at < queries.length; at += SLICE)
      for (const [name, call] of shuffled(entries)) {
        const run = await runBatch(call, queries.slice(at, at + SLICE), inFlight);
        const total = totals.get(name);
        total.latencies.push(...run.latencies);
        total.seconds += run.seconds;
        total.cpuSeconds += run.cpuSeconds;
        const count = run.latencies.length;
        total.turns.push({
          qps: count / run.seconds,
          cpuMs: (1000 * run.cpuSeconds) / count,
          p50: median(run.latencies),
        });
      }
  return Object.fromEntries(
    [...totals].map(([name, { latencies, seconds, cpuSeconds, turns }]) => {
      latencies.sort((x, y) => x - y);
      const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
      const cpuMs = (1000 * cpuSeconds) / latencies.length;
      return [name, { qps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), cpuMs, turns }];
    }),
  );
}

/**
 * The median over turns of `side`'s q/s as a share of `base`'s (the two ran in the same turn,
 * one after the other), of the CPU per query it adds, and of the p50 it adds. Paired by turn,
 * a drift of the back-end's queue or of the machine's speed during the run cancels out, where
 * the p50 over the whole run carries it (a back-end whose own p50 is 30 ms under load moves by
 * more than a millisecond from one turn to the next).
 */
function paired(side, base) {
  const over = (value) => median(side.turns.map((turn, i) => value(turn, base.turns[i])));
  return {
    share: over((s, b) => s.qps / b.qps),
    addedCpuMs: over((s, b) => s.cpuMs - b.cpuMs),
    addedP50: over((s, b) => s.p50 - b.p50),
  };
}

/**
 * irserve with BM25 over the corpus and `service` as "backend". Batching as docs/scale-out.md
 * advises for a back-end: no wait to fill a batch (the engine runs a batch's requests side by
 * side on its pool anyway) and as many batches in flight as the pool has connections.
 */
async function appFor(service, dir) {
  const engineClass = [...engines, Instant].find((e) => e.name === service.engine);
  if (TIMER && engineClass) TIMER.watch(engineClass);
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
        { name: 'bm25', engine: 'BM25', cache: 0, max_wait_time: 0, config: { collection: 'c' } },
        {
          ...service,
          name: 'backend',
          cache: 0,
          max_wait_time: 0,
          max_concurrent_batches: CONCURRENCY,
        },
      ],
    },
    {
      logger: pino({ level: 'warn' }),
      engines: [...engines, Instant],
      extras: false,
      interactive: false,
      cacheDir: join(dir, 'cache'),
    },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

const pipelineRequest = (query) => ({
  pipeline: '{bm25%100, backend%100}RRF%100',
  query,
  collection: 'c',
});
/** Sides that never go through irserve's engine (the driver, or no back-end at all). */
const BY_HAND = new Set(['direct', 'clientFusion', 'httpFusion', 'coreFusion', 'hop']);

/**
 * The sides compared for one back-end: `direct` (the driver, the engine's own statement),
 * `search` (irserve's /search in process), `http` (the same over HTTP on loopback, keep-alive),
 * `clientFusion` (the back-end directly and irserve's BM25, fused by the caller),
 * `pipeline` (`{bm25%100, backend%100}RRF%100` in irserve: the same depth as by hand), and
 * `httpFusion` / `httpPipeline` (the same two with irserve called over HTTP on loopback), and
 * `core`, `coreFusion`, `corePipeline` (the back-end's service, BM25's service and the pipeline
 * runner called in process, without the HTTP layer).
 */
async function through(app, direct) {
  const inject = async (url, payload) => {
    const r = await app.http.inject({ method: 'POST', url, payload });
    if (r.statusCode !== 200) throw new Error(r.body);
    return r.json();
  };
  const http = postTo(app.addresses.http);
  const hop = await plainServer();
  /** Scores of a service called in process, without the HTTP layer. */
  const serviceScores = (name) => async (query) =>
    (await app.core.services.get('search', name).call({ query, limit: LIMIT })).value;
  /** BM25's scores from irserve's `/search`, sent by `send`. */
  const searchScores = (send) => async (query) =>
    (await send('/search', { service: 'bm25', query, limit: LIMIT })).scores;
  /** The caller's fusion: the back-end directly and irserve's BM25 (from `bm25`) side by side. */
  const byHand = (bm25) => async (query) => {
    const [backend, scores] = await Promise.all([direct(query), bm25(query)]);
    return rrfByHand([backend, scores], LIMIT);
  };
  const sides = {
    direct: (query) => direct(query),
    search: (query) => inject('/search', { service: 'backend', query, limit: LIMIT }),
    http: (query) => http('/search', { service: 'backend', query, limit: LIMIT }),
    clientFusion: byHand(searchScores(inject)),
    pipeline: (query) => inject('/pipeline', pipelineRequest(query)),
    // The same two over HTTP, as a client of a server calls them: one HTTP request each.
    httpFusion: byHand(searchScores(http)),
    httpPipeline: (query) => http('/pipeline', pipelineRequest(query)),
    // Without the HTTP layer: irserve's services and pipeline runner called in process.
    core: serviceScores('backend'),
    coreFusion: byHand(serviceScores('bm25')),
    corePipeline: (query) => app.core.pipelines.run(pipelineRequest(query)),
    // No irserve: a plain node:http server answering 100 scores, one loopback hop.
    hop: (query) => hop.post('/', { query }),
  };
  const chosen = Object.fromEntries(Object.entries(sides).filter(([name]) => SIDES.has(name)));
  const loaded = ROUNDS > 0 ? await compare(chosen) : {};
  // One request at a time: what a request pays for going through irserve, with no queue before
  // it (at 8 in flight on one core, a request also waits for the CPU of the 7 others).
  const phases = {};
  const timed = TIMER
    ? Object.fromEntries(
        Object.entries(chosen).map(([name, call]) =>
          BY_HAND.has(name) ? [name, call] : [name, TIMER.phased(call, (phases[name] = []))],
        ),
      )
    : chosen;
  const alone =
    LATENCY_ROUNDS > 0 ? await compare(timed, { inFlight: 1, rounds: LATENCY_ROUNDS }) : {};
  await hop.close();
  return { loaded, alone, phases };
}

/**
 * POSTs JSON to `base` with node:http and keep-alive, one socket per worker: lighter than fetch,
 * so the client's own work (sharing the CPU with the server in this process) weighs little in
 * the figure. Resolves with the parsed answer; a status other than 200 rejects.
 */
function postTo(base) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const { hostname, port } = new URL(base);
  return (path, payload) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(payload);
      const headers = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      };
      const req = request({ agent, hostname, port, path, method: 'POST', headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200) reject(new Error(text));
          else resolve(JSON.parse(text));
        });
      });
      req.on('error', reject);
      req.end(body);
    });
}

/**
 * A plain node:http server on loopback that answers every POST with 100 scores, and a client
 * for it (`post`): what one HTTP hop costs on this machine, with no irserve in it. A pipeline
 * called over HTTP makes one hop more in a row than fusion by hand (client to irserve, then
 * irserve to the back-end, where the caller reaches both at once).
 */
async function plainServer() {
  const answer = JSON.stringify({ scores: Instant.scores });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const post = postTo(`http://127.0.0.1:${server.address().port}`);
  return { post, close: () => new Promise((resolve) => server.close(resolve)) };
}

// ---- no back-end: irserve's own cost -------------------------------------------------------
/** A search engine that answers at once with 100 documents: what is left is irserve's own work. */
class Instant {
  static scores = Object.fromEntries(Array.from({ length: LIMIT }, (_, i) => [`d${i}`, LIMIT - i]));
  async searchBatch(requests) {
    return requests.map(() => ({ ...Instant.scores }));
  }
}

async function instant() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-instant-'));
  const app = await appFor({ engine: 'Instant' }, dir);
  const engine = new Instant();
  const result = await through(app, async (query) => (await engine.searchBatch([{ query }]))[0]);
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
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
  const child = spawnServer(
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
  pool.on('error', () => undefined); // connections ended by the server's shutdown
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
  const config = {
    host: '127.0.0.1',
    port,
    user: 'bench',
    database: 'postgres',
    table: 'docs',
    tsvector_column: 'tsv',
    ts_config: 'simple',
    pool_size: CONCURRENCY,
  };
  const settings = parsePostgresConfig(config);
  const direct = new pg.Pool(poolConfig(settings, undefined));
  direct.on('error', () => undefined); // connections ended by the server's shutdown
  const app = await appFor({ engine: 'Postgres', config }, dir);
  const result = await through(app, async (query) => {
    const statement = pgSql.fulltextSearch(settings, { query, limit: LIMIT });
    const { rows } = await direct.query(statement.text, statement.values);
    return Object.fromEntries(rows.map((row) => [row.id, Number(row.score)]));
  });
  await app.close();
  await direct.end();
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
  const child = spawnServer('searchd', ['--config', join(dir, 's.conf'), '--nodetach'], {
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
  await pool.end();
  const config = { port, index: 'rt', id_attribute: 'docid', pool_size: CONCURRENCY };
  const settings = parseManticoreConfig(config);
  // The engine's pool options (mysql2, keep-alive on, no stack capture per query), the engine's
  // statement and timeout.
  const direct = mysql.createPool({
    host: settings.host,
    port,
    connectionLimit: settings.pool_size,
    connectTimeout: Math.round(settings.timeout * 1000),
    enableKeepAlive: true,
    trace: false,
  });
  const app = await appFor({ engine: 'Sphinx', config }, dir);
  const result = await through(app, async (query) => {
    const statement = sphinxql.matchSearch(settings, { query, limit: LIMIT });
    // Rows as arrays, as the engine reads them: the same driver work on both sides (and a
    // driver that parses rows one way only, as it does in a process of its own).
    const [rows] = await direct.query({
      sql: statement.sql,
      values: statement.values,
      timeout: Math.round(settings.timeout * 1000),
      rowsAsArray: true,
    });
    const scores = {};
    for (const [docid, score] of rows) scores[String(docid)] = Number(score) / 1e6;
    return scores;
  });
  await app.close();
  await direct.end();
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
    const child = spawnServer(
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
    rows[name] = { ...(await compare({ call })).call, hits };
    await app.close();
  }
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

const fmt = (m) =>
  `${m.qps.toFixed(0).padStart(6)} q/s p50 ${m.p50.toFixed(2).padStart(6)} p99 ${m.p99.toFixed(1).padStart(5)} ms  cpu ${m.cpuMs.toFixed(3)} ms/q`;
const signed = (x, digits) => `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`;
/** Added p50, share of the base's q/s and added CPU: over all turns, then the median of turns. */
const added = (side, base) => {
  const turns = paired(side, base);
  return (
    `${signed(side.p50 - base.p50, 2).padStart(6)} ms ${((100 * side.qps) / base.qps).toFixed(0).padStart(4)}% ${signed(side.cpuMs - base.cpuMs, 3)} cpu ms/q` +
    ` | turns: ${signed(turns.addedP50, 2).padStart(6)} ms ${(100 * turns.share).toFixed(0).padStart(3)}% ${signed(turns.addedCpuMs, 3)} cpu ms/q`
  );
};
console.log(
  `corpus ${DOCS} docs, ${QUERIES} queries of 3 words, ${CONCURRENCY} in flight, top ${LIMIT}, ${ROUNDS} rounds, sides taking turns every ${SLICE} queries` +
    (LATENCY_ROUNDS > 0 ? `; then ${LATENCY_ROUNDS} round(s) with 1 in flight` : ''),
);
console.log(
  PIN
    ? `pinned with taskset: this process (client and irserve) on CPU ${PIN.bench}, back-end servers on CPU ${PIN.server}`
    : 'not pinned: client, irserve and back-end servers share every CPU',
);
console.log(
  V8_TUNED
    ? 'V8 as the irserve command sets it (allocation-site pretenuring off; --v8 node to keep it)\n'
    : "V8 with Node's defaults\n",
);
/** The sides of one back-end, each against the side it is compared with. */
const SIDE_ROWS = [
  ['driver, direct', 'direct'],
  ['irserve /search', 'search', 'direct'],
  ['irserve /search, HTTP', 'http', 'direct'],
  ['driver + BM25, RRF by hand', 'clientFusion'],
  ['{bm25,backend}RRF%100', 'pipeline', 'clientFusion', '  (against RRF by hand)'],
  ['driver + BM25 HTTP, by hand', 'httpFusion'],
  ['{bm25,backend}RRF%100, HTTP', 'httpPipeline', 'httpFusion', '  (against by hand, HTTP)'],
  ['service, no HTTP', 'core', 'direct'],
  ['by hand, BM25 service', 'coreFusion'],
  ['pipeline runner, no HTTP', 'corePipeline', 'coreFusion', '  (against by hand, no HTTP)'],
  ['plain node:http, one hop', 'hop'],
];
function printSides(name, { loaded, alone, phases = {} }) {
  if (Object.keys(loaded).length > 0) printLoaded(name, loaded);
  if (Object.keys(alone).length > 0) printAlone(name, alone, phases);
  if (name !== 'Instant') printTarget(loaded, alone);
}
/** The issue's target for the pipeline against fusion by hand, in process and over HTTP. */
const TARGET_PAIRS = [
  ['in process', 'pipeline', 'clientFusion'],
  ['over HTTP', 'httpPipeline', 'httpFusion'],
];
/**
 * One line per pair measured: at least 90% of by hand's q/s and under 1 ms added p50, at 8 in
 * flight and with 1 in flight, by the whole run's figures (the median of turns beside each).
 */
function printTarget(loaded, alone) {
  for (const [where, side, base] of TARGET_PAIRS) {
    const checks = [];
    if (loaded[side] && loaded[base]) {
      const turns = paired(loaded[side], loaded[base]);
      const share = loaded[side].qps / loaded[base].qps;
      const p50 = loaded[side].p50 - loaded[base].p50;
      checks.push([
        share >= 0.9,
        `q/s ${(100 * share).toFixed(0)}% (${(100 * turns.share).toFixed(0)}%)`,
      ]);
      checks.push([
        p50 < 1,
        `p50 at ${CONCURRENCY} ${signed(p50, 2)} ms (${signed(turns.addedP50, 2)})`,
      ]);
    }
    if (alone[side] && alone[base]) {
      const p50 = alone[side].p50 - alone[base].p50;
      const turns = paired(alone[side], alone[base]).addedP50;
      checks.push([p50 < 1, `p50 at 1 ${signed(p50, 2)} ms (${signed(turns, 2)})`]);
    }
    if (checks.length === 0) continue;
    const verdict = checks.every(([met]) => met) ? 'met' : 'not met';
    const detail = checks.map(([met, text]) => `${text} ${met ? 'ok' : 'MISSED'}`).join(', ');
    console.log(`  target (>= 90% q/s, < 1 ms p50), ${where}: ${verdict}: ${detail}`);
  }
}
function printLoaded(name, loaded) {
  console.log(
    `${name} (${CONCURRENCY} in flight)`.padEnd(73) +
      'added p50, share of q/s, added CPU per query | the same, median of turns',
  );
  for (const [label, side, base, note = ''] of SIDE_ROWS)
    if (loaded[side])
      console.log(
        `  ${label.padEnd(28)}${fmt(loaded[side])}${loaded[base] ? `  ${added(loaded[side], loaded[base])}${note}` : ''}`,
      );
}
function printAlone(name, alone, phases) {
  console.log(`${name} (1 in flight)`.padEnd(73) + 'added p50 | median of turns');
  for (const [label, side, base] of SIDE_ROWS)
    if (alone[side])
      console.log(
        `  ${label.padEnd(28)}p50 ${alone[side].p50.toFixed(2).padStart(6)} ms  p99 ${alone[side].p99.toFixed(1).padStart(5)} ms` +
          (alone[base]
            ? `  ${signed(alone[side].p50 - alone[base].p50, 2).padStart(6)} ms | ${signed(paired(alone[side], alone[base]).addedP50, 2)} ms`
            : ''),
      );
  for (const [label, side] of SIDE_ROWS)
    if (phases[side]?.length > 0) {
      const [before, inside, after, trip] = phaseMedians(phases[side]).map((ms) => ms.toFixed(2));
      const ofWhich = trip === 'NaN' ? '' : ` (the driver's round trip ${trip})`;
      console.log(
        `  ${label.padEnd(28)}${before} ms before the engine, ${inside} in it${ofWhich}, ${after} after (medians, 1 in flight)`,
      );
    }
}
for (const [name, run] of [
  ['Instant', instant],
  ['PostgreSQL', postgres],
  ['Sphinx', sphinx],
]) {
  if (!ONLY.has(name.toLowerCase())) continue;
  const r = await run();
  if (r) printSides(name, r);
}
const cache = ONLY.has('redis') ? await redis() : undefined;
if (cache) {
  console.log('\ncache hits   store                             hits of 50 re-asked');
  for (const [name, m] of Object.entries(cache))
    console.log(`${name.padEnd(12)} ${fmt(m)}   ${m.hits}`);
}
