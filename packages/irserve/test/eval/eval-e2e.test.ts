import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const quickstart = join(here, '../../../../examples/quickstart');

// End to end through the app; needs the pipeline module (the lead's) to be present.
const hasPipelines = existsSync(join(here, '../../src/pipeline/index.ts'));
const cli = hasPipelines ? await import('../../src/cli/main.js') : undefined;

describe.skipIf(!hasPipelines)('irserve eval on the quickstart', () => {
  let dir: string | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('evaluates a fused pipeline and writes the run file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'irserve-eval-'));
    const out: string[] = [];
    const io = { out: (line: string) => out.push(line), err: () => undefined };
    const data = join(quickstart, 'data/cranfield');
    const code = await cli!.main(
      [
        'eval',
        join(quickstart, 'config.json'),
        '--pipeline',
        '{bm25, bm25-title}RRF%50 >> bm25',
        '--collection',
        'cranfield',
        '--queries',
        join(data, 'queries.jsonl'),
        '--qrels',
        join(data, 'qrels.tsv'),
        '--run',
        join(dir, 'run.trec'),
        '--log-level',
        'silent',
      ],
      {},
      io,
    );
    expect(code).toBe(0);
    const output = out.at(-1)!;
    expect(output).toMatch(/nDCG@10\s+0\.\d{4}/);
    const run = await readFile(join(dir, 'run.trec'), 'utf8');
    expect(run.split('\n')[0]).toMatch(/^1 Q0 \d+ 1 [\d.e-]+ irserve$/);
  });
});
