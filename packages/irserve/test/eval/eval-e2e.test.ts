import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CRANFIELD_FLAGS, QUICKSTART_CONFIG, runIrserve } from '../helpers/run-cli.js';

const files = CRANFIELD_FLAGS;
const evalOn = (...argv: string[]) => runIrserve(['eval', QUICKSTART_CONFIG, ...files, ...argv]);

// Generous: the first test builds the quickstart's indexes on a shared, busy machine.
describe('irserve eval on the quickstart', { timeout: 90_000 }, () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('evaluates a fused pipeline and writes the run file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-eval-'));
    const result = await evalOn(
      ...['--pipeline', '{bm25, bm25-title}RRF%50 >> bm25', '--collection', 'cranfield'],
      // runs/ does not exist yet: it is created
      ...['--run', join(dir, 'runs', 'run.trec')],
    );
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/nDCG@10\s+0\.\d{4}/);
    const run = await readFile(join(dir, 'runs', 'run.trec'), 'utf8');
    expect(run.split('\n')[0]).toMatch(/^1 Q0 \d+ 1 [\d.e-]+ irserve$/);
  });

  it('needs no --collection when no stage reranks', async () => {
    const result = await evalOn('--pipeline', 'bm25');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/nDCG@10\s+0\.3510\nAP\s+0\.2879/);
  });

  it('fails on a bad stage before the first query, and writes no run', async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-eval-'));
    const run = ['--run', join(dir, 'run.trec')];
    const noCollection = await evalOn(...run, '--pipeline', 'bm25 >> bm25');
    expect(noCollection.code).toBe(1);
    expect(noCollection.err).toMatch(
      /pipeline bm25 >> bm25: stage 'bm25' reranks documents and needs the request's `collection` field/,
    );
    const unknown = await evalOn(
      ...run,
      '--pipeline',
      'bm25 >> nosuch',
      '--collection',
      'cranfield',
    );
    expect(unknown.err).toMatch(/no score service is named 'nosuch'/);
    expect(existsSync(join(dir, 'run.trec'))).toBe(false);
  });
});
