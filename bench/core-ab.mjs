// irserve's own CPU per request, two builds side by side in one process:
//
//   node bench/core-ab.mjs --base ../other-checkout [--requests 6000] [--sides search,pipeline]
//
// `--base` is another checkout of irserve, built (`npm run build`): say `git worktree add
// ../base main && (cd ../base && npm ci)`. Both builds serve the same config, with engines that
// answer from the event loop with 100 documents (the second with half of its ids its own, so
// that a fusion of the two holds about 150); `/search` and `{a%100, b%100}RRF%100` are called
// through `inject` with 8 in flight, the builds taking turns every 200 requests (which one goes
// first alternating) so that a change of machine load hits both alike. What is printed is this process's CPU microseconds
// per request for each build and their difference: irserve's own work, with no back-end.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    requests: { type: 'string', default: '6000' },
    sides: { type: 'string', default: 'search,pipeline' },
  },
});
if (values.base === undefined) throw new Error('--base: the path of the other checkout');
const REQUESTS = Number(values.requests);
const SLICE = 200;
const IN_FLIGHT = 8;
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** An engine answering, after one turn of the event loop, with the score map of `ids`. */
const engineOf = (ids) =>
  class {
    async searchBatch(requests) {
      await new Promise((done) => setImmediate(done));
      return requests.map(() => {
        const scores = Object.create(null);
        ids.forEach((id, rank) => (scores[id] = 1 - rank / 200));
        return scores;
      });
    }
  };
const A = engineOf(Array.from({ length: 100 }, (_, i) => `d${i * 7}`));
const B = engineOf(Array.from({ length: 100 }, (_, i) => `d${i * 7 + 3 * (i % 2)}`));
Object.defineProperty(A, 'name', { value: 'A' });
Object.defineProperty(B, 'name', { value: 'B' });

const dir = mkdtempSync(join(tmpdir(), 'bench-core-ab-'));
writeFileSync(
  join(dir, 'c.jsonl'),
  Array.from({ length: 1000 }, (_, i) => JSON.stringify({ id: `d${i}`, text: `w${i % 7}` })).join(
    '\n',
  ),
);

async function appOf(root, name) {
  const { createApp } = await import(join(root, 'packages/irserve/dist/index.js'));
  const service = (engine) => ({
    name: engine.toLowerCase(),
    engine,
    cache: 0,
    max_wait_time: 0,
    max_concurrent_batches: IN_FLIGHT,
  });
  const app = await createApp(
    {
      collections: [
        {
          name: 'c',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'c.jsonl') } } },
        },
      ],
      services: [service('A'), service('B')],
    },
    {
      logger: pino({ level: 'warn' }),
      engines: [A, B],
      extras: false,
      interactive: false,
      cacheDir: join(dir, `cache-${name}`),
    },
  );
  const inject = async (url, payload) => {
    const response = await app.http.inject({ method: 'POST', url, payload });
    if (response.statusCode !== 200) throw new Error(response.body);
    return response.json();
  };
  return {
    app,
    search: (query) => inject('/search', { service: 'a', query, limit: 100 }),
    pipeline: (query) =>
      inject('/pipeline', { pipeline: '{a%100, b%100}RRF%100', query, collection: 'c' }),
  };
}

/** CPU microseconds this process spends on `count` calls, `IN_FLIGHT` at a time. */
async function cpuOf(call, count) {
  let next = 0;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await call(`q${next++ % 500} w1`);
    }),
  );
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

const builds = { base: await appOf(resolve(values.base), 'base'), this: await appOf(here, 'this') };
console.log(
  `base: ${resolve(values.base)}\nthis: ${here}\n${REQUESTS} requests per side and build, ${IN_FLIGHT} in flight, turns every ${SLICE}\n`,
);
for (const side of values.sides.split(',')) {
  for (const build of Object.values(builds)) await cpuOf(build[side], Math.min(2000, REQUESTS)); // warm-up
  const total = { base: 0, this: 0 };
  const differences = [];
  for (let done = 0, turn = 0; done < REQUESTS; done += SLICE, turn++) {
    // The build that goes first changes every turn (base, this, this, base, ...): the one that
    // runs second may pay for the first one's garbage, and that must not favour either.
    const names = turn % 2 === 0 ? ['base', 'this'] : ['this', 'base'];
    const used = {};
    for (const name of names) used[name] = await cpuOf(builds[name][side], SLICE);
    total.base += used.base;
    total.this += used.this;
    differences.push((used.this - used.base) / SLICE);
  }
  const perRequest = (name) => total[name] / REQUESTS;
  differences.sort((a, b) => a - b);
  const median = differences[Math.floor(differences.length / 2)];
  console.log(
    `${side.padEnd(9)} base ${perRequest('base').toFixed(1).padStart(7)} µs  this ${perRequest('this').toFixed(1).padStart(7)} µs  difference ${(perRequest('this') - perRequest('base')).toFixed(1).padStart(7)} µs CPU per request (median of turns ${median.toFixed(1)} µs)`,
  );
}
for (const build of Object.values(builds)) await build.app.close();
rmSync(dir, { recursive: true, force: true });
