// Instructions a pipeline request costs, counted by Valgrind rather than timed: on a shared
// machine whose CPUs change speed by a fifth from one run to the next, a count is the figure
// that repeats (within about 2%), so a change of 10 µs shows where a timing cannot see it.
//
//   npm run build && node bench/pipeline-instructions.mjs [--ops 1000] [--variants S,P1,H,F,P]
//
// Each variant runs in its own `node --predictable` under `valgrind --tool=cachegrind`, twice:
// after the same 400 warm-up requests, once with 200 more and once with 200 + `ops`; the
// difference over `ops` is the count per request (start-up, index and JIT warm-up cancel out).
// `--predictable` keeps V8's garbage collection and compilation on one thread, so runs repeat.
// The variants, in one process each, over two engines that answer at once with 100 ids made
// afresh (as a driver parses them) with fractional scores:
//   S   one service call (`i1`, limit 100)
//   P1  the pipeline `i1%100`
//   H   `i1` through its service and `i2` called directly, fused by the caller (RRF by hand)
//   F   both through their services, then irserve's RRF service and the cut to 100
//   P   the pipeline `{i1%100, i2%100}RRF%100`
// So P1 - S and P - F are the pipeline layer itself; P - H is the pipeline against fusion by
// hand. Needs Valgrind (`apt-get install valgrind`); each run takes about a minute.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rrfByHand } from './lib/rrf-by-hand.mjs';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '1000' },
    variants: { type: 'string', default: 'S,P1,H,F,P' },
    worker: { type: 'string' },
    count: { type: 'string' },
  },
});

if (values.worker) await runWorker(values.worker, Number(values.count));
else await drive();

/** One variant: warm up, then `count` requests one after the other, then exit. */
async function runWorker(name, count) {
  const { pino } = await import('pino');
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { cutRanking } = await import('../packages/irserve/dist/pipeline/scores.js');
  const idList = (step, from) =>
    Buffer.from(Array.from({ length: 100 }, (_, i) => `d${i * step + from}`).join(','));
  // A new string per id and call, as a driver makes them from the bytes it reads.
  const fresh = (bytes) => {
    const out = Object.create(null);
    let start = 0;
    let rank = 0;
    for (let i = 0; i <= bytes.length; i++)
      if (i === bytes.length || bytes[i] === 44) {
        out[bytes.toString('latin1', start, i)] = 10.123456789 - rank++ / 7;
        start = i + 1;
      }
    return out;
  };
  const first = idList(13, 0);
  const second = idList(7, 1);
  class I1 {
    async searchBatch(requests) {
      return requests.map(() => fresh(first));
    }
  }
  class I2 {
    async searchBatch(requests) {
      return requests.map(() => fresh(second));
    }
  }
  const service = (n) => ({ name: n, engine: n.toUpperCase(), cache: 0, max_wait_time: 0 });
  const app = await createApp(
    { services: [service('i1'), service('i2')] },
    { logger: pino({ level: 'warn' }), engines: [I1, I2], extras: false, interactive: false },
  );
  await app.start();
  const { services, pipelines } = app.core;
  const i1 = services.get('search', 'i1');
  const i2 = services.get('search', 'i2');
  const rrf = services.get('fuse', 'RRF');
  const direct = new I2();
  const variants = {
    S: (query) => i1.call({ query, limit: 100 }),
    P1: (query) => pipelines.run({ pipeline: 'i1%100', query }),
    H: async (query) => {
      const [a, b] = await Promise.all([
        i1.call({ query, limit: 100 }),
        direct.searchBatch([{ query }]),
      ]);
      return rrfByHand([a.value, b[0]], 100);
    },
    F: async (query) => {
      const [a, b] = await Promise.all([
        i1.call({ query, limit: 100 }),
        i2.call({ query, limit: 100 }),
      ]);
      const fused = await rrf.call({ query, rankings: [a.value, b.value] });
      return cutRanking(fused.value, 100, rrf.checkedKeys?.(fused.value));
    },
    P: (query) => pipelines.run({ pipeline: '{i1%100, i2%100}RRF%100', query }),
  };
  const call = variants[name];
  if (!call) throw new Error(`--variants: unknown variant "${name}" (S, P1, H, F, P)`);
  for (let i = 0; i < 400 + count; i++) await call(`q${i & 7}`);
  process.exit(0);
}

/** Instructions of one worker run (Valgrind's "I refs"). */
function instructions(name, count) {
  const args = ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null'];
  const script = fileURLToPath(import.meta.url);
  const node = [process.execPath, '--predictable', script, '--worker', name, '--count', count];
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', [...args, ...node.map(String)], { stdio: 'pipe' });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (error) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('valgrind not found (Debian: apt-get install valgrind)')
          : error,
      ),
    );
    child.on('close', (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(err);
      if (code !== 0 || !refs) reject(new Error(`valgrind ${name} ${count}: ${err.slice(-800)}`));
      else resolve(Number(refs[1].replaceAll(',', '')));
    });
  });
}

/** Runs `jobs` (functions returning promises) at most `limit` at a time, results in order. */
async function pooled(jobs, limit) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await jobs[at]();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

async function drive() {
  const ops = Number(values.ops);
  if (!(ops > 0)) throw new Error(`--ops: expected a positive number, got "${values.ops}"`);
  const names = values.variants.split(',');
  const jobs = names.flatMap((n) => [() => instructions(n, 200), () => instructions(n, 200 + ops)]);
  const counts = await pooled(jobs, Math.max(1, availableParallelism()));
  const per = Object.fromEntries(
    names.map((n, i) => [n, (counts[2 * i + 1] - counts[2 * i]) / ops]),
  );
  console.log(`instructions per request (Valgrind, node --predictable), ${ops} requests each`);
  for (const n of names)
    console.log(`  ${n.padEnd(3)} ${Math.round(per[n]).toLocaleString('en').padStart(10)}`);
  const diff = (a, b) =>
    a in per &&
    b in per &&
    console.log(
      `  ${a} - ${b}: ${Math.round(per[a] - per[b])
        .toLocaleString('en')
        .padStart(9)}`,
    );
  diff('P1', 'S');
  diff('P', 'F');
  diff('P', 'H');
}
