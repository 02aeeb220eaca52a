/**
 * `irserve experiment` end to end on a config with plugin engines: a search engine that counts
 * its calls and answers integer-like ids (the ordering trap), one that fails on some queries.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentResult } from '../../src/experiment/analyse.js';
import { runIrserve } from '../helpers/run-cli.js';

const PLUGIN = `
// Scores: document n gets 10 - |n - word count * 7|; ids 1..30, integer-like.
export class CountingSearch {
  async searchBatch(requests) {
    globalThis.__experimentCalls = (globalThis.__experimentCalls ?? 0) + requests.length;
    return requests.map(({ query }) => {
      const centre = query.split(' ').length * 7;
      const scores = {};
      for (let n = 1; n <= 30; n++) scores[String(n)] = 10 - Math.abs(n - centre);
      return scores;
    });
  }
}
export class FlakySearch {
  async searchBatch(requests) {
    return requests.map(({ query }) => {
      if (query.includes('boom')) throw new Error('flaky engine gave up');
      return { '7': 2, '14': 1 };
    });
  }
}
`;

const QUERIES = [
  { id: 'q1', text: 'one' },
  { id: 'q2', text: 'two words' },
  { id: 'q3', text: 'boom three words' },
  { id: 'q4', text: 'not judged' },
];
// q1: 7 is best for CountingSearch; q2: 14; q3: 28 (the flaky engine fails on it).
const QRELS = 'q1 0 7 2\nq1 0 6 1\nq2 0 14 1\nq2 0 3 0\nq3 0 28 1\n';

let dir: string;
const config = () => join(dir, 'config.json');
const args = (...extra: string[]) => [
  config(),
  '--queries',
  join(dir, 'queries.jsonl'),
  '--qrels',
  join(dir, 'qrels.txt'),
  '--log_level',
  'silent',
  ...extra,
];
const experiment = (...extra: string[]) => runIrserve(['experiment', ...args(...extra)]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-experiment-'));
  await writeFile(join(dir, 'engines.mjs'), PLUGIN);
  await writeFile(join(dir, 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n'));
  await writeFile(join(dir, 'qrels.txt'), QRELS);
  const services = [
    { name: 'count', engine: 'CountingSearch', max_wait_time: 0.001 },
    { name: 'flaky', engine: 'FlakySearch', batch_size: 1, max_wait_time: 0.001, cache: -1 },
  ];
  await writeFile(
    config(),
    JSON.stringify({ file_imports: ['engines.mjs'], services, cache_dir: join(dir, 'cache') }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('irserve experiment', () => {
  it('compares pipelines, reuses shared stages from the cache, counts a failed query', async () => {
    const globals = globalThis as { __experimentCalls?: number };
    globals.__experimentCalls = 0;
    const outDir = join(dir, 'out', 'first');
    const { code, out, err } = await experiment(
      '--pipeline',
      'count',
      '--pipeline',
      'fused={count, flaky}RRF',
      '--measures',
      'nDCG@10,P@1,RR',
      '--trials',
      '1000',
      '--out',
      outDir,
    );
    expect(code).toBe(1); // one query failed
    // Three judged queries, two pipelines: `count` ran once per query, the cache gave the rest.
    expect(globals.__experimentCalls).toBe(3);
    const text = out;
    expect(text).toMatch(/3 judged queries, 2 pipelines/);
    // q3: 28 ties 14 at rank 14 (trec_eval order: larger id first): RR (1 + 1 + 1/14) / 3.
    expect(text).toMatch(/count \(baseline\)\s+0\.6501\s+0\.6667\s+0\.6905\s+0/);
    expect(text).toMatch(/fused .* 1$/m);
    expect(err).toMatch(/1 queries failed/);
    const result = JSON.parse(
      await readFile(join(outDir, 'results.json'), 'utf8'),
    ) as ExperimentResult;
    expect(result.queries.map((q) => q.id)).toEqual(['q1', 'q2', 'q3']);
    expect(result.pipelines[1]!.failed).toEqual([
      { query: 'q3', message: 'service "flaky" failed: flaky engine gave up' },
    ]);
    expect(result.pipelines[1]!.perQuery['P@1']).toEqual([1, 1, 0]);
    expect(result.comparisons.map((c) => [c.measure, c.wins, c.losses, c.ties])).toEqual([
      ['nDCG@10', 0, 1, 2],
      ['P@1', 0, 0, 3],
      ['RR', 0, 1, 2],
    ]);
    expect((await readdir(join(outDir, 'runs'))).sort()).toEqual(['1-count.trec', '2-fused.trec']);
    // Ranked by score, not by the ids' numeric order: 7 first for q1, then 6 and 8 (tied, id descending as trec_eval reads them).
    const run = await readFile(join(outDir, 'runs', '1-count.trec'), 'utf8');
    expect(run.split('\n').slice(0, 3)).toEqual([
      'q1 Q0 7 1 10 count',
      'q1 Q0 8 2 9 count',
      'q1 Q0 6 3 9 count',
    ]);
    const csv = await readFile(join(outDir, 'per-query.csv'), 'utf8');
    expect(csv.split('\n')[1]).toBe('count,q1,nDCG@10,0.9502344167898356'); // (2 + 1/log2 4) / (2 + 1/log2 3)
  });

  it('writes a self-contained report', async () => {
    const html = await readFile(join(dir, 'out', 'first', 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg');
    expect(html).toContain('flaky engine gave up');
    // Nothing loaded from elsewhere: no src= or href= attributes, no stylesheet links.
    expect(html).not.toMatch(/\s(src|href)=/);
    const data = /<script type="application\/json" id="experiment-results">(.*?)<\/script>/s.exec(
      html,
    );
    expect((JSON.parse(data![1]!) as ExperimentResult).measures).toEqual(['nDCG@10', 'P@1', 'RR']);
  });

  it('checks every pipeline before the first query', async () => {
    const globals = globalThis as { __experimentCalls?: number };
    globals.__experimentCalls = 0;
    const outDir = join(dir, 'out', 'never');
    const result = await experiment(
      ...['--pipeline', 'count', '--pipeline', 'bad=count >> nosuch', '--out', outDir],
    );
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(/pipeline bad: stage 'nosuch': no score service is named 'nosuch'/);
    expect(globals.__experimentCalls).toBe(0);
    await expect(readdir(outDir)).rejects.toThrow(/ENOENT/);
  });

  it('refuses bad arguments before doing anything', async () => {
    const refused = async (argv: string[], message: RegExp) => {
      const result = await runIrserve(['experiment', ...argv]);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(message);
    };
    await refused(args('--pipeline', 'count', '--measures', 'P'), /P needs a cutoff/);
    await refused(
      args('--pipeline', 'count', '--baseline', 'other'),
      /--baseline other: not one of the pipelines \(count\)/,
    );
    await refused(
      args('--pipeline', 'a=count', '--pipeline', 'a=flaky'),
      /the name a is used twice/,
    );
    await refused(args(), /--pipeline is required/);
    await refused([config(), '--pipeline', 'count'], /--queries is required/);
    await refused(args('--pipeline', 'count', '--trials', '5'), /--trials must be an integer/);
    const missing = await runIrserve([
      'experiment',
      config(),
      ...['--pipeline', 'count', '--queries', 'nope.jsonl', '--qrels', 'x'],
    ]);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/--queries nope\.jsonl: no such file; --qrels x: no such file/);
  });
});
