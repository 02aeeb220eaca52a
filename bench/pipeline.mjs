// Overhead of the pipeline layer: pipeline latency minus the latency of its stages, for
// `{a, b}RRF%100 >> s` on constant engines, measured side by side in one process.
//
//   npm run build && node bench/pipeline.mjs [--iterations 5000]
//
// Three loops alternate, iteration by iteration, over the same app (no caches anywhere but the
// collection's content cache, which all three share):
//   pipeline  core.pipelines.run({pipeline: '{a, b}RRF%100 >> s', ...})
//   by hand   the same service calls made directly: a and b together, RRF, the content lookups
//             of the 100 fused ids, then s
//   stages    the same calls without the content lookups (passages prepared beforehand)
// overhead = pipeline - by hand (parse cache, planning, binding, cuts, zips, fetch dedup,
// envelope). "pipeline - stages" also counts fetching content through the collection.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { topScores } from './lib/ranking.mjs';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '5000' } } });
const iterations = Number(values.iterations);
const warmup = Math.min(1000, iterations);

function constantScores(from, count) {
  const out = {};
  for (let i = 0; i < count; i++) out[`doc${from + i}`] = count - i;
  return out;
}

class ConstA {
  async searchBatch(requests) {
    return requests.map(() => constantScores(0, 100));
  }
}
class ConstB {
  async searchBatch(requests) {
    return requests.map(() => constantScores(50, 100));
  }
}
class ConstScore {
  async scoreBatch(requests) {
    return requests.map(({ passages }) => passages.map((_, i) => i));
  }
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const fmt = (ms) => `${ms.toFixed(3)} ms`;

async function main() {
  const { createApp } = await import('../packages/irserve/dist/index.js');
  const { pino } = await import('pino');
  const dir = await mkdtemp(join(tmpdir(), 'irserve-bench-pipeline-'));
  const docs = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({ id: `doc${i}`, text: `text ${i}` }),
  );
  await writeFile(join(dir, 'docs.jsonl'), docs.join('\n') + '\n');
  const service = (name, engine) => ({ name, engine, cache: -1, max_wait_time: 0 });
  const app = await createApp(
    {
      services: [service('a', 'ConstA'), service('b', 'ConstB'), service('s', 'ConstScore')],
      collections: [
        {
          name: 'docs',
          views: { text: { source: { source: 'text_jsonl', doc_path: join(dir, 'docs.jsonl') } } },
        },
      ],
    },
    {
      logger: pino({ level: 'warn' }),
      engines: [ConstA, ConstB, ConstScore],
      interactive: false,
      cacheDir: join(dir, 'cache'),
    },
  );
  await app.start();
  const { core } = app;
  const [a, b, rrf, s] = [
    core.services.get('search', 'a'),
    core.services.get('search', 'b'),
    core.services.get('fuse', 'RRF'),
    core.services.get('score', 's'),
  ];
  const query = 'q';
  const body = { pipeline: '{a, b}RRF%100 >> s', query, collection: 'docs' };
  const top100 = (scores) => topScores(scores, 100);

  async function byHand(withContent, prepared) {
    const [ra, rb] = await Promise.all([
      a.call({ query, limit: 1000 }),
      b.call({ query, limit: 1000 }),
    ]);
    const fused = top100(
      (await rrf.call({ query, rankings: [ra.value, rb.value], branches: 2, limit: 100 })).value,
    );
    const ids = Object.keys(fused);
    const passages = withContent
      ? await Promise.all(
          ids.map(
            async (id) =>
              (await core.content.lookup({ collection: 'docs', id, view: 'text' })).document.text,
          ),
        )
      : prepared;
    const scored = (await s.call({ query, passages })).value;
    return Object.fromEntries(ids.map((id, i) => [id, scored[i]]));
  }

  const check = await core.pipelines.run(body);
  const prepared = Object.keys(check.scores).map((id) => `text ${id.slice(3)}`);
  const hand = await byHand(true, prepared);
  if (JSON.stringify(Object.keys(hand).sort()) !== JSON.stringify(Object.keys(check.scores).sort()))
    throw new Error('by-hand and pipeline results differ');

  const times = { pipeline: [], byHand: [], stages: [] };
  const loops = [
    ['pipeline', () => core.pipelines.run(body)],
    ['byHand', () => byHand(true, prepared)],
    ['stages', () => byHand(false, prepared)],
  ];
  for (let i = 0; i < warmup + iterations; i++) {
    for (const [name, run] of loops) {
      const started = performance.now();
      await run();
      if (i >= warmup) times[name].push(performance.now() - started);
    }
  }
  const stats = Object.fromEntries(
    Object.entries(times).map(([name, list]) => {
      const sorted = [...list].sort((x, y) => x - y);
      return [name, { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) }];
    }),
  );
  console.log(
    `{a, b}RRF%100 >> s, constant engines, ${iterations} iterations each (after ${warmup} warm-up)`,
  );
  console.log(
    `pipeline                p50 ${fmt(stats.pipeline.p50)}  p99 ${fmt(stats.pipeline.p99)}`,
  );
  console.log(`same calls by hand      p50 ${fmt(stats.byHand.p50)}  p99 ${fmt(stats.byHand.p99)}`);
  console.log(`stage calls only        p50 ${fmt(stats.stages.p50)}  p99 ${fmt(stats.stages.p99)}`);
  console.log(
    `overhead (pipeline - by hand)       p50 ${fmt(stats.pipeline.p50 - stats.byHand.p50)}  (target < 1 ms)`,
  );
  console.log(
    `overhead incl. content (- stages)   p50 ${fmt(stats.pipeline.p50 - stats.stages.p50)}`,
  );
  await app.close();
  await rm(dir, { recursive: true, force: true });
}

await main();
