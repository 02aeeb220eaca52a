/**
 * `irserve tune` on a generated collection whose best fusion parameters are known:
 *
 * - ScoreFusion: branch A scores r + 3e, branch B r - 7e (r the judged grade, e noise), so
 *   0.7 A + 0.3 B = r exactly: weights [0.7, 0.3] rank every query perfectly, any other leaves
 *   noise;
 * - WeightedRRF: A ranks by grade, B at random, so weights [1, 0] are best.
 *
 * The snippet it prints, pasted into the config, gives the tuned figure through `irserve eval`.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TuneResult } from '../../src/experiment/tune.js';
import { runIrserve } from '../helpers/run-cli.js';

// The generator: grades and noise from a hash of (query, document), shared by the engines and
// the qrels below. 200 documents with integer-like ids, 40 queries.
const GENERATOR = `
export function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return ((h >>> 0) % 1000003) / 1000003;
}
export const grade = (q, d) => { const x = hash('g' + q + '/' + d); return x < 0.04 ? 2 : x < 0.12 ? 1 : 0; };
export const noise = (q, d) => 2 * hash('e' + q + '/' + d) - 1;
const each = (query, score) => { const out = {}; for (let d = 0; d < 200; d++) out[String(d)] = score(query, d); return out; };
export class NoisyA { async searchBatch(rs) { return rs.map((r) => each(r.query, (q, d) => grade(q, d) + 3 * noise(q, d))); } }
export class NoisyB { async searchBatch(rs) { return rs.map((r) => each(r.query, (q, d) => grade(q, d) - 7 * noise(q, d))); } }
export class ByGrade { async searchBatch(rs) { return rs.map((r) => each(r.query, (q, d) => 10 * grade(q, d) + hash('t' + q + d))); } }
export class AtRandom { async searchBatch(rs) { return rs.map((r) => each(r.query, (q, d) => hash('r' + q + '/' + d))); } }
`;

let dir: string;
const base = () => [
  join(dir, 'config.json'),
  '--queries',
  join(dir, 'queries.jsonl'),
  '--qrels',
  join(dir, 'qrels.txt'),
  '--log_level',
  'silent',
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-tune-'));
  await writeFile(join(dir, 'engines.mjs'), GENERATOR);
  const { grade } = (await import(join(dir, 'engines.mjs'))) as {
    grade: (q: string, d: number) => number;
  };
  const queries = Array.from({ length: 40 }, (_, i) => ({ id: `q${i}`, text: `q${i}` }));
  const qrels = queries.flatMap(({ text }) =>
    Array.from({ length: 200 }, (_, d) => `${text} 0 ${d} ${grade(text, d)}`),
  );
  await writeFile(join(dir, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n'));
  await writeFile(join(dir, 'qrels.txt'), qrels.join('\n'));
  const services = ['NoisyA', 'NoisyB', 'ByGrade', 'AtRandom'].map((engine) => ({
    name: engine.toLowerCase(),
    engine,
    max_wait_time: 0.001,
  }));
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ file_imports: ['engines.mjs'], services, cache_dir: join(dir, 'cache') }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function tune(
  ...extra: string[]
): Promise<{ result: TuneResult; text: string; code: number }> {
  const file = join(dir, `tuned-${Math.random().toString(36).slice(2)}.json`);
  const { code, out, err } = await runIrserve(['tune', ...base(), ...extra, '--out', file]);
  expect(err).toBe('');
  const written = JSON.parse(await readFile(file, 'utf8')) as { tuning: TuneResult };
  return { result: written.tuning, text: out, code };
}

describe('irserve tune recovers known weights', { timeout: 90_000 }, () => {
  it('ScoreFusion: [0.7, 0.3], by grid search and by coordinate ascent', async () => {
    for (const search of ['grid', 'coordinate']) {
      const { result, code } = await tune(
        '--pipeline',
        '{noisya, noisyb}ScoreFusion%10',
        '--search',
        search,
      );
      expect(code).toBe(0);
      expect(result.final.params).toEqual({ weights: [0.7, 0.3] });
      expect(result.final.score).toBe(1);
      for (const fold of result.folds) expect(fold.params).toEqual({ weights: [0.7, 0.3] });
      // Held out, every query is ranked perfectly; equal weights leave noise.
      expect(result.heldOut.tuned).toBe(1);
      expect(result.heldOut.default).toBeLessThan(0.9);
      expect(result.heldOut.p).toBeLessThan(0.001);
    }
  });

  it('WeightedRRF: [1, 0], with the default k among equals; the snippet works in a config', async () => {
    const { result, text } = await tune(
      '--pipeline',
      '{bygrade, atrandom}WeightedRRF%10',
      '--name',
      'best',
    );
    expect(result.final.params).toEqual({ weights: [1, 0], k: 60 });
    expect(result.folds.map((f) => f.test)).toEqual([8, 8, 8, 8, 8]);
    expect(result.heldOut.difference).toBeGreaterThan(0);
    expect(text).toMatch(/checked through the server with these parameters: nDCG@10 1\.0000/);
    expect(text).toContain(
      '{"name":"best-fusion","engine":"WeightedRRF","config":{"weights":[1,0],"rrf_k":60}}',
    );
    expect(text).toContain('"pipeline_aliases": {"best":"{bygrade, atrandom}best-fusion%10"}');
    // Paste: the config with the service and the alias, evaluated through the server.
    const snippet = JSON.parse(text.slice(text.indexOf('{\n  "services"'))) as {
      services: unknown[];
      pipeline_aliases: Record<string, string>;
    };
    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as {
      services: unknown[];
    };
    await writeFile(
      join(dir, 'tuned-config.json'),
      JSON.stringify({
        ...config,
        services: [...config.services, ...snippet.services],
        pipeline_aliases: snippet.pipeline_aliases,
      }),
    );
    const { code, out } = await runIrserve([
      'eval',
      join(dir, 'tuned-config.json'),
      ...base().slice(1),
      '--pipeline',
      'best',
      '--measures',
      'nDCG@10',
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/nDCG@10\s+1\.0000/);
  });

  it('refuses what it cannot tune, before running a query', async () => {
    const refused = async (extra: string[], message: RegExp) => {
      const result = await runIrserve(['tune', ...base(), ...extra]);
      expect(result.code).not.toBe(0);
      expect(result.err).toMatch(message);
    };
    await refused(['--pipeline', 'noisya'], /is not a single fusion group/);
    await refused(
      ['--pipeline', '{noisya, noisyb}CombMNZ'],
      /the merger CombMNZ is not one of WeightedRRF, ScoreFusion, RRF/,
    );
    await refused(['--pipeline', '{noisya, nosuch}RRF'], /no search service is named 'nosuch'/);
    await refused(['--pipeline', '{a, b}RRF', '--step', '0.3'], /--step must divide 1/);
    await refused(['--pipeline', '{a, b}RRF', '--search', 'random'], /--search must be auto/);
    await refused([], /--pipeline is required/);
  });
});
