/**
 * On the bundled Cranfield collection: `irserve experiment` with three pipelines gives each the
 * nDCG@10 and the run that `irserve eval` gives it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentResult } from '../../src/experiment/analyse.js';
import { CRANFIELD_FLAGS, QUICKSTART_CONFIG, runIrserve } from '../helpers/run-cli.js';

const files = CRANFIELD_FLAGS;
const PIPELINES = [
  ['bm25', 'bm25'],
  ['title', 'bm25-title'],
  ['fused-rerank', '{bm25, bm25-title}RRF%50 >> bm25'],
] as const;

/** A TREC run without its tag column (eval tags "irserve", experiment the pipeline's name). */
const untagged = (run: string) =>
  run
    .trimEnd()
    .split('\n')
    .map((line) => line.split(' ').slice(0, 5).join(' '));

describe('irserve experiment on Cranfield', { timeout: 120_000 }, () => {
  let dir: string;
  let result: ExperimentResult;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-cranfield-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('compares three pipelines and writes its outputs', async () => {
    const pipelines = PIPELINES.flatMap(([name, expr]) => ['--pipeline', `${name}=${expr}`]);
    const { code } = await runIrserve([
      'experiment',
      QUICKSTART_CONFIG,
      ...files,
      ...pipelines,
      '--collection',
      'cranfield',
      '--out',
      join(dir, 'experiment'),
    ]);
    expect(code).toBe(0);
    result = JSON.parse(await readFile(join(dir, 'experiment', 'results.json'), 'utf8'));
    expect(result.queries).toHaveLength(225);
    expect(result.pipelines.map((p) => p.name)).toEqual(PIPELINES.map(([name]) => name));
    // The collection's reference BM25 (docs/experiments.md).
    expect(result.pipelines[0]!.means['nDCG@10']!.mean).toBeCloseTo(0.351, 3);
  });

  it('gives each pipeline the nDCG@10 and the run irserve eval gives it', async () => {
    for (const [index, [name, expr]] of PIPELINES.entries()) {
      const runPath = join(dir, 'eval', name, 'run.trec'); // a folder that does not exist yet
      const { code, out } = await runIrserve([
        'eval',
        QUICKSTART_CONFIG,
        ...files,
        '--pipeline',
        expr,
        '--collection',
        'cranfield',
        '--measures',
        'nDCG@10',
        '--run',
        runPath,
      ]);
      expect(code).toBe(0);
      const printed = /nDCG@10\s+(\d\.\d{4})/.exec(out)![1];
      expect(printed).toBe(result.pipelines[index]!.means['nDCG@10']!.mean.toFixed(4));
      const fromEval = untagged(await readFile(runPath, 'utf8'));
      const runFile = `${index + 1}-${name}.trec`;
      const fromExperiment = untagged(
        await readFile(join(dir, 'experiment', 'runs', runFile), 'utf8'),
      );
      expect(fromExperiment).toEqual(fromEval);
    }
  });
});
