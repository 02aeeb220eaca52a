import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openIndex, saveIndex, trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { randomVectors } from './helpers.js';

const DIM = 16;
const data = randomVectors(600, DIM, 11);
const queries = randomVectors(20, DIM, 12);
const ids = Array.from({ length: 600 }, (_, i) => `doc-${i}`);
const dirs: string[] = [];
async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-vi-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('save and open round trip', () => {
  it.each<[string, Metric]>([
    ['Flat', 'ip'],
    ['Flat', 'l2'],
    ['HNSW16', 'ip'],
    ['HNSW16,SQ8', 'l2'],
    ['HNSW16,SQfp16', 'ip'],
    ['IVF8,Flat', 'l2'],
    ['SQfp16', 'ip'],
    ['SQ8', 'l2'],
    ['IVF8,SQfp16', 'l2'],
    ['IVF8,SQ8', 'ip'],
    ['IVF4,PQ4', 'ip'],
    ['IVF8_HNSW4,PQ4', 'l2'],
    ['IVF8_HNSW4,SQ8', 'ip'],
  ])('%s (%s) searches the same after reopening', async (factory, metric) => {
    const dir = await tempDir();
    const built = trainAndAdd(factory, data, DIM, metric, { seed: 2, kmeansIterations: 5 });
    const manifest = await saveIndex(built, ids, dir);
    const opened = await openIndex(dir);
    expect(opened.ids).toEqual(ids);
    expect(opened.manifest).toEqual(manifest);
    expect(opened.index).toMatchObject({ dim: DIM, metric, count: 600, factory });
    const before = built.search(queries, 5, { nprobe: 2 });
    const after = opened.index.search(queries, 5, { nprobe: 2 });
    expect(after.labels).toEqual(before.labels);
  });

  it('serves another efSearch from the saved HNSW graph', async () => {
    const dir = await tempDir();
    // One build thread: a multi-threaded build links a different graph on every run, and a
    // sparse HNSW8 graph can then miss a neighbour even at efSearch 200.
    await saveIndex(trainAndAdd('HNSW8', data, DIM, 'ip', { threads: 1 }), ids, dir);
    const { index } = await openIndex(dir);
    const exact = trainAndAdd('Flat', data, DIM, 'ip').search(queries, 5).labels;
    expect(index.search(queries, 5, { efSearch: 200 }).labels).toEqual(exact);
    expect(index.search(queries, 5, { efSearch: 1 }).labels).not.toEqual(exact);
  });
});

describe('corrupt or missing directories', () => {
  async function saved() {
    const dir = await tempDir();
    await saveIndex(trainAndAdd('Flat', data, DIM, 'ip'), ids, dir);
    return dir;
  }

  it('a missing directory, or one without an index', async () => {
    await expect(openIndex(join(tmpdir(), 'no-such-irserve-index'))).rejects.toThrow(
      /does not exist/,
    );
    await expect(openIndex(await tempDir())).rejects.toThrow(
      /neither manifest.json .* nor index.faiss/,
    );
  });

  it('a flipped byte fails the checksum', async () => {
    const dir = await saved();
    const bytes = await readFile(join(dir, 'vectors.f32'));
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(join(dir, 'vectors.f32'), bytes);
    await expect(openIndex(dir)).rejects.toThrow(/checksum mismatch in vectors.f32/);
  });

  it('a truncated file fails the size check', async () => {
    const dir = await saved();
    await truncate(join(dir, 'vectors.f32'), 1000);
    await expect(openIndex(dir)).rejects.toThrow(/vectors.f32 has 1000 bytes, expected/);
  });

  it('a missing data file, ids file or broken manifest', async () => {
    const dir = await saved();
    await rm(join(dir, 'index.ids'));
    await expect(openIndex(dir)).rejects.toThrow(/index.ids is missing/);
    const other = await saved();
    await writeFile(join(other, 'manifest.json'), '{"format": "irserve-dense-index", ');
    await expect(openIndex(other)).rejects.toThrow(/manifest.json is not valid JSON/);
    const edited = await saved();
    const manifest = JSON.parse(await readFile(join(edited, 'manifest.json'), 'utf8'));
    manifest.files['vectors.f32'].sha256 = '0'.repeat(64);
    await writeFile(join(edited, 'manifest.json'), JSON.stringify(manifest));
    await expect(openIndex(edited)).rejects.toThrow(/checksum does not match its file list/);
  });
});
