import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openIndex } from '../../src/vector-index/index.js';

// Fixtures written by Python faiss (test/fixtures/make-fixtures.py), with faiss's own results.
const FIXTURES = fileURLToPath(new URL('../fixtures/faiss/', import.meta.url));
interface Expected {
  dim: number;
  queries: number[];
  results: Record<string, { labels: number[][]; distances: number[][] }>;
}
const expected = JSON.parse(
  await readFile(join(FIXTURES, 'faiss-expected.json'), 'utf8'),
) as Expected;
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** RoutIR's layout: `index.faiss` beside `index.ids`. */
async function routirDir(name: string) {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-faiss-'));
  dirs.push(dir);
  await copyFile(join(FIXTURES, `${name}.faiss`), join(dir, 'index.faiss'));
  if (name === 'ivf-sparse-ip') {
    // This fixture holds only the first 3 vectors.
    await writeFile(join(dir, 'index.ids'), 'doc0\ndoc1\ndoc2\n');
  } else {
    await copyFile(join(FIXTURES, 'index.ids'), join(dir, 'index.ids'));
  }
  return dir;
}

describe('opening FAISS indexes written by Python faiss', () => {
  it.each([
    ['flat-ip', 'Flat', 'ip'],
    ['flat-l2', 'Flat', 'l2'],
    ['ivf-flat', 'IVF4,Flat', 'l2'],
    ['ivf-sparse-ip', 'IVF16,Flat', 'ip'],
    ['hnsw-flat', 'Flat', 'l2'],
    ['idmap-flat-ip', 'Flat', 'ip'],
  ])('%s gives faiss results', async (name, factory, metric) => {
    const { index, ids, manifest } = await openIndex(await routirDir(name));
    expect(manifest.format).toBe('faiss');
    expect(index).toMatchObject({ factory, metric, dim: expected.dim });
    expect(ids[0]).toBe('doc0');
    const want = expected.results[name]!;
    const result = index.search(Float32Array.from(expected.queries), 5);
    want.labels.forEach((row, q) => {
      // IndexIDMap's external ids were 1000 + 7 * position.
      const positions = name.startsWith('idmap') ? row.map((l) => (l - 1000) / 7) : row;
      expect(Array.from(result.labels.subarray(q * 5, q * 5 + 5))).toEqual(positions);
      const scores = want.distances[q]!.map((d) => (metric === 'l2' ? -d : d));
      // faiss pads missing results with -1 and -FLT_MAX; irserve with -1 and -Infinity.
      Array.from(result.scores.subarray(q * 5, q * 5 + 5)).forEach((s, i) => {
        if (row[i]! >= 0) expect(s).toBeCloseTo(scores[i]!, 3);
      });
    });
  });

  it('an ids file of the wrong length is a clear error', async () => {
    const dir = await routirDir('ivf-sparse-ip');
    await copyFile(join(FIXTURES, 'index.ids'), join(dir, 'index.ids'));
    await expect(openIndex(dir)).rejects.toThrow(/index.ids has 40 ids for 3 vectors/);
  });

  it('a FAISS index without index.ids is a clear error', async () => {
    const dir = await routirDir('flat-ip');
    await rm(join(dir, 'index.ids'));
    await expect(openIndex(dir)).rejects.toThrow(/index.faiss has no index.ids beside it/);
  });
});
