// The `irserve` command with V8's allocation-site pretenuring off (its default) against the same
// command with it on (`IRSERVE_V8_PRETENURING=on`, Node's default), side by side:
//
//   npm run build && node bench/v8-pretenuring.mjs [--turns 20] [--requests 1000] [--in_flight 8]
//     [--paths /search,/pipeline] [--pin auto|off]
//
// Two servers of the same config (the quickstart's Cranfield collection, two BM25 services,
// caches off, no fill wait) take turns serving `--requests` requests with `--in_flight` at a
// time over HTTP keep-alive, the queries being Cranfield's 225 in turn: `/search` (BM25, top
// 100) and `/pipeline` (`{bm25%100, bm25-title%100}RRF%100`). Which server goes first changes
// every turn. Printed per path and server: the server process's CPU microseconds per request
// (from /proc, so Linux only) and q/s, medians over turns. With `--pin auto` (default, when
// `taskset` exists and there are two CPUs or more) both servers run on the last CPU and this
// client on the others.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './lib/median.mjs';
import { cpuMs } from './lib/proc-cpu.mjs';
import { freePort } from './lib/free-port.mjs';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '20' },
    requests: { type: 'string', default: '1000' },
    in_flight: { type: 'string', default: '8' },
    paths: { type: 'string', default: '/search,/pipeline' },
    pin: { type: 'string', default: 'auto' },
  },
});
const TURNS = Number(values.turns);
const REQUESTS = Number(values.requests);
const IN_FLIGHT = Number(values.in_flight);
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/irserve/bin/irserve.js');
const quickstart = join(root, 'examples/quickstart');

const cpus = availableParallelism();
const pinned =
  values.pin === 'auto' && cpus >= 2 && spawnSync('taskset', ['-V']).status === 0
    ? { client: `0-${cpus - 2}`, server: String(cpus - 1) }
    : undefined;
if (pinned) spawnSync('taskset', ['-a', '-p', '-c', pinned.client, String(process.pid)]);

/** The quickstart config with caches off and no fill wait: every request does its work. */
function writeConfig(dir) {
  cpSync(join(quickstart, 'data'), join(dir, 'data'), { recursive: true });
  const config = JSON.parse(readFileSync(join(quickstart, 'config.json'), 'utf8'));
  for (const service of config.services) Object.assign(service, { cache: 0, max_wait_time: 0 });
  config.pipeline_cache = 0;
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return join(dir, 'config.json');
}

const queries = readFileSync(join(quickstart, 'data/cranfield/queries.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line).text);
const bodies = {
  '/search': (query) => ({ service: 'bm25', query, limit: 100 }),
  '/pipeline': (query) => ({
    pipeline: '{bm25%100, bm25-title%100}RRF%100',
    query,
    collection: 'cranfield',
  }),
};

/** Starts one server; resolves with its pid, port and HTTP agent once it listens. */
async function startServer(config, port, env) {
  const args = [bin, 'serve', config, '--port', String(port), '--log-level', 'warn'];
  // taskset execs Node in its own process: the pid read below is the server's.
  const child = pinned
    ? spawn('taskset', ['-c', pinned.server, process.execPath, ...args], { env, stdio: 'inherit' })
    : spawn(process.execPath, args, { env, stdio: 'inherit' });
  const server = { child, port, agent: new Agent({ keepAlive: true, maxSockets: IN_FLIGHT }) };
  for (let i = 0; i < 600; i++) {
    if (
      await call(server, 'GET', '/health').then(
        () => true,
        () => false,
      )
    )
      return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server on port ${port} did not start`);
}

function call(server, method, path, payload) {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  const headers = body
    ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
    : {};
  return new Promise((resolve, reject) => {
    const req = request(
      { agent: server.agent, host: '127.0.0.1', port: server.port, path, method, headers },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve()
            : reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU milliseconds the server has used (from /proc: Linux only, as `taskset` is). */
function cpuMsOf(pid) {
  const ms = cpuMs(pid);
  if (ms === undefined) throw new Error(`cannot read /proc/${pid}/stat (this bench needs Linux)`);
  return ms;
}

/** One turn: `count` requests, IN_FLIGHT at a time; the server's CPU µs per request and q/s. */
async function turn(server, path, count) {
  const cpuBefore = cpuMsOf(server.child.pid);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count)
        await call(server, 'POST', path, bodies[path](queries[next++ % queries.length]));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { cpuUs: ((cpuMsOf(server.child.pid) - cpuBefore) * 1000) / count, qps: count / seconds };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-v8-'));
const config = writeConfig(dir);
const servers = {
  'pretenuring off (irserve)': await startServer(config, await freePort(), { ...process.env }),
  'pretenuring on (Node)': await startServer(config, await freePort(), {
    ...process.env,
    IRSERVE_V8_PRETENURING: 'on',
  }),
};
console.log(
  `${TURNS} turns of ${REQUESTS} requests per path and server, ${IN_FLIGHT} in flight; ` +
    (pinned ? `servers on CPU ${pinned.server}, client on ${pinned.client}` : 'not pinned'),
);
console.log('path        server                       server CPU µs/request    q/s');
try {
  for (const path of values.paths.split(',')) {
    if (!bodies[path]) throw new Error(`--paths: no such path "${path}" (/search, /pipeline)`);
    const runs = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
    for (const server of Object.values(servers)) await turn(server, path, REQUESTS); // warm up
    for (let i = 0; i < TURNS; i++) {
      const names = Object.keys(servers);
      for (const name of i % 2 === 0 ? names : names.reverse())
        runs[name].push(await turn(servers[name], path, REQUESTS));
    }
    for (const [name, list] of Object.entries(runs))
      console.log(
        `${path.padEnd(11)} ${name.padEnd(28)} ${median(list.map((r) => r.cpuUs))
          .toFixed(0)
          .padStart(8)}` +
          `               ${median(list.map((r) => r.qps))
            .toFixed(0)
            .padStart(6)}`,
      );
  }
} finally {
  for (const server of Object.values(servers)) server.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
