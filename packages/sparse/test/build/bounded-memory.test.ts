/**
 * The bounded-memory build (runs of postings spilled to disk and merged) writes, byte for byte,
 * the index an in-memory build writes, with budgets small enough to force many runs; a damaged
 * run is found when it is merged, and a failed build leaves neither runs nor an index.
 */
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSparseIndex } from '../../src/build/build-index.js';
import { listInputFiles } from '../../src/corpus/input-files.js';
import { parseRecord } from '../../src/corpus/parse-record.js';
import { readCorpus } from '../../src/corpus/read-corpus.js';
import { BoundedIndexBuilder } from '../../src/index/bounded-builder.js';
import { SparseIndexBuilder } from '../../src/index/index-builder.js';
import type { SparseManifest } from '../../src/index/manifest.js';
import { writeIndex } from '../../src/index/write-index.js';
import { randomVectors, seeded } from '../helpers/random.js';

let dir: string;
let corpus: string;
const silent = { info: () => {}, warn: () => {} };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'irserve-sparse-bounded-'));
  corpus = join(dir, 'corpus.jsonl');
  const vectors = randomVectors(seeded(5), 1500, { vocabulary: 900, terms: 40, maxWeight: 3 });
  // Passages of documents (`doc::n`), so the passage-to-document map spans runs.
  const lines = vectors.map(({ id, vector }, i) =>
    JSON.stringify({ id: `d${Math.floor(i / 3)}::${id}`, vector }),
  );
  await writeFile(corpus, lines.join('\n') + '\n');
});

/** The index an in-memory build of the corpus writes (the builder before bounded memory). */
async function inMemory(out: string, quantization: number, impactOrdered: boolean) {
  const builder = new SparseIndexBuilder({
    quantization,
    blockSize: 8,
    passageIds: 'auto',
    impactOrdered,
  });
  await readCorpus(await listInputFiles(corpus), {
    quantization,
    onPassage: (passage) => builder.add(passage),
  });
  return writeIndex(builder.finish(), join(dir, out), { passageIds: 'auto' });
}

async function bounded(out: string, quantization: number, impactOrdered: boolean, budget: number) {
  return buildSparseIndex({
    input: corpus,
    outputDir: join(dir, out),
    quantization,
    blockSize: 8,
    impactOrdered,
    memoryBudget: budget,
    threads: 1,
    logger: silent,
  });
}

async function expectSameIndex(a: string, b: string, ma: SparseManifest, mb: SparseManifest) {
  const files = (await readdir(join(dir, a))).sort();
  expect((await readdir(join(dir, b))).sort()).toEqual(files);
  for (const name of files.filter((n) => n !== 'manifest.json')) {
    const same = (await readFile(join(dir, a, name))).equals(await readFile(join(dir, b, name)));
    expect(same, name).toBe(true);
  }
  const fields = ({ createdAt: _c, build: _b, ...rest }: SparseManifest) => rest;
  expect(fields(mb)).toEqual(fields(ma));
}

describe('irserve-build-sparse-index in bounded memory', () => {
  for (const [quantization, impactOrdered] of [
    [100, false],
    [100, true],
    [0, true],
  ] as const)
    it(`writes the in-memory build's bytes with many runs (quantization ${quantization}, impact-ordered ${impactOrdered})`, async () => {
      const name = `q${quantization}-${impactOrdered}`;
      const expected = await inMemory(`${name}-memory`, quantization, impactOrdered);
      const tiny = await bounded(`${name}-tiny`, quantization, impactOrdered, 1);
      expect(tiny.spills).toBeGreaterThanOrEqual(5);
      await expectSameIndex(`${name}-memory`, `${name}-tiny`, expected, tiny.manifest);
      const roomy = await bounded(`${name}-roomy`, quantization, impactOrdered, 1 << 30);
      expect(roomy.spills).toBe(0);
      await expectSameIndex(`${name}-memory`, `${name}-roomy`, expected, roomy.manifest);
      // No run files or partial directories are left beside the index.
      expect((await readdir(dir)).filter((n) => n.includes('partial'))).toEqual([]);
    }, 60_000); // three builds: slow on a loaded machine

  it('warns once, naming the budget to give, when the ids leave no room for runs', async () => {
    const warnings: string[] = [];
    const built = await buildSparseIndex({
      input: corpus,
      outputDir: join(dir, 'warned'),
      memoryBudget: 1,
      threads: 1,
      logger: { info: () => {}, warn: (line) => warnings.push(line) },
    });
    expect(built.spills).toBeGreaterThanOrEqual(5);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the memory budget \(1 B\) is used up by the ids/);
    expect(warnings[0]).toMatch(
      /runs are written every 4096 postings.*--memory_budget well above \d/,
    );
  });

  it('finds a damaged run when it merges, and leaves neither runs nor an index', async () => {
    const outputDir = join(dir, 'damaged');
    const builder = await BoundedIndexBuilder.create({
      outputDir,
      quantization: 100,
      blockSize: 8,
      passageIds: 'auto',
      memoryBudget: 1,
    });
    const lines = (await readFile(corpus, 'utf8')).trim().split('\n');
    for (const line of lines) await builder.add(parseRecord(line, 100));
    expect(builder.runFiles.length).toBeGreaterThanOrEqual(5);
    const run = builder.runFiles[2]!;
    const bytes = await readFile(run);
    bytes[100] = bytes[100]! ^ 0x10;
    await writeFile(run, bytes);
    await expect(builder.finish({})).rejects.toThrow(
      /run file .*run-00002\.arr is damaged \(.*do not match their checksum.*\): the build stops/,
    );
    expect(
      (await readdir(dir)).filter((n) => n.startsWith('damaged') || n.includes('.damaged')),
    ).toEqual([]);
  });

  it('refuses --reorder cluster past the memory budget, before the index is half written', async () => {
    await expect(
      buildSparseIndex({
        input: corpus,
        outputDir: join(dir, 'clustered'),
        reorder: true,
        memoryBudget: 64 << 10,
        threads: 1,
        logger: silent,
      }),
    ).rejects.toThrow(/--reorder cluster builds the whole index in memory.*raise --memory_budget/);
    expect((await readdir(dir)).filter((n) => n.includes('clustered'))).toEqual([]);
  });
});
