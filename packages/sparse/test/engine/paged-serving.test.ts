/**
 * An index larger than the service's `memory_budget` is served from its files (the head in
 * memory, the lists through a page cache of the rest of the budget): every strategy answers as
 * in memory, `/health` says where the index is and how much is resident.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineContext } from 'irserve/plugin';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { LSR } from '../../src/index.js';
import { openLsr, servedPaged } from '../../src/engine/opened.js';
import type { SparseManifest } from '../../src/index/manifest.js';
import { writeIndex } from '../../src/index/write-index.js';
import { queryTerms } from '../../src/search/query-terms.js';
import { buildFromVectors, randomVectors, seeded } from '../helpers/random.js';

let dir: string;
let indexBytes: number;
const random = seeded(17);
const queries = Array.from(
  { length: 10 },
  () => randomVectors(random, 1, { vocabulary: 2000, terms: 20, maxWeight: 2 })[0]!.vector,
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-paged-'));
  const vectors = randomVectors(random, 6000, { vocabulary: 2000, terms: 60, maxWeight: 3 });
  const manifest = await writeIndex(
    buildFromVectors(vectors, { quantization: 100, blockSize: 8, impactSlice: 512 }),
    join(dir, 'index'),
    { passageIds: 'none' },
  );
  indexBytes = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
});

async function answers(
  strategy: 'exhaustive' | 'bmp' | 'auto' | 'impact-ordered',
  budget?: number,
) {
  const opened = await openLsr(join(dir, 'index'), undefined, strategy, 'start', {
    memoryBudget: budget,
  });
  try {
    const out = [];
    for (const vector of queries)
      for (const k of [1, 10, 1000]) {
        const hits = opened.search(queryTerms(opened.lookup, vector, 100), { k });
        out.push([Array.from(hits.ids), Array.from(hits.scores)]);
      }
    return { out, storage: opened.storage, resident: opened.residentBytes() };
  } finally {
    await opened.close();
  }
}

describe('a sparse index served under a memory budget', () => {
  it('answers from its files as from memory with every strategy, holding at most the budget', async () => {
    const expected = await answers('exhaustive');
    expect(expected.storage).toBe('memory');
    const budget = Math.floor(indexBytes / 3);
    for (const strategy of ['exhaustive', 'bmp', 'auto', 'impact-ordered'] as const) {
      const paged = await answers(strategy, budget);
      expect(paged.storage).toBe('paged');
      expect(paged.out).toEqual(expected.out);
      expect(paged.resident).toBeGreaterThan(0);
      expect(paged.resident).toBeLessThanOrEqual(budget);
    }
    // A budget the index fits in: loaded into memory.
    expect((await answers('bmp', indexBytes * 2)).storage).toBe('memory');
  });

  it('refuses a budget smaller than the head, naming the field', async () => {
    await expect(
      openLsr(join(dir, 'index'), undefined, 'auto', 'start', { memoryBudget: 1000 }),
    ).rejects.toThrow(
      /config.memory_budget: 1000 B is less than the head of the index at .* needs in memory/,
    );
  });

  it('serves a file past 4 GiB from the files whatever the budget', () => {
    const manifest = { files: { 'inverted.passages.u32': { bytes: 2 ** 32 + 4, crc32: 0 } } };
    expect(servedPaged(manifest as unknown as SparseManifest, undefined)).toBe(true);
    manifest.files['inverted.passages.u32'].bytes = 2 ** 32 - 4;
    expect(servedPaged(manifest as unknown as SparseManifest, undefined)).toBe(false);
  });

  it('says in /health and the start log where the index is and how much is resident', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const context = {
      logger,
      configDir: dir,
      cacheDir: join(dir, 'cache'),
      interactive: false,
      resources: new Map(),
    } as unknown as EngineContext;
    const budget = Math.floor(indexBytes / 3);
    const lsr = new LSR({
      name: 'lsr',
      config: { encoder: 'none', index_path: 'index', search: 'bmp', memory_budget: budget },
      context,
    });
    await lsr.start();
    try {
      const health = lsr.health();
      expect(health).toMatchObject({ state: 'up', storage: 'paged', memory_budget_bytes: budget });
      expect(health['resident_bytes']).toBeLessThanOrEqual(budget);
      const opened = lines.find((line) => String(line['msg']).startsWith('sparse index opened'));
      expect(opened).toMatchObject({ storage: 'paged' });
      expect(String(opened!['msg'])).toMatch(/served from its files/);
    } finally {
      await lsr.close();
    }
  });
});
