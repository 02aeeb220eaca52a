import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readFaissIndex, readIdsFile, type FaissIndexData } from '../../src/formats/index.js';
import { expected, f32, fixture, tempDir } from './helpers.js';

interface Expected {
  dim: number;
  queries: number[];
  vectors: number[];
  results: Record<string, { labels: number[][]; distances: (number | string)[][] }>;
}
const WANT = expected<Expected>('faiss', 'faiss-expected.json');
const DIM = WANT.dim;
const VECTORS = f32(WANT.vectors);

/** Exact top-k over plain data, scored as faiss scores (IP, or squared L2 ascending). */
function search(index: FaissIndexData, query: number[], k: number): number[] {
  const rows: { id: number; vector: ArrayLike<number> }[] = [];
  const add = (vectors: Float32Array, id: (i: number) => number) => {
    for (let i = 0; i < vectors.length / DIM; i++)
      rows.push({ id: id(i), vector: vectors.subarray(i * DIM, (i + 1) * DIM) });
  };
  if (index.kind === 'ivf-flat')
    for (const list of index.lists) add(list.vectors, (i) => list.ids[i]!);
  else if (index.kind === 'id-map' && index.index.kind === 'flat')
    add(index.index.vectors, (i) => index.ids[i]!);
  else if (index.kind === 'flat' || index.kind === 'hnsw-flat') add(index.vectors, (i) => i);
  const score = (v: ArrayLike<number>) => {
    let s = 0;
    for (let j = 0; j < DIM; j++)
      s += index.metric === 'ip' ? v[j]! * query[j]! : (v[j]! - query[j]!) ** 2;
    return index.metric === 'ip' ? -s : s;
  };
  return rows
    .map((row) => ({ id: row.id, s: score(row.vector) }))
    .sort((a, b) => a.s - b.s)
    .slice(0, k)
    .map((r) => r.id);
}

const queries = [0, 1, 2].map((q) => f32(WANT.queries.slice(q * DIM, (q + 1) * DIM)));

describe('readFaissIndex on faiss.write_index files', () => {
  test.each([
    ['flat-ip', 'flat', 'ip'],
    ['flat-l2', 'flat', 'l2'],
    ['ivf-flat', 'ivf-flat', 'l2'],
    ['ivf-sparse-ip', 'ivf-flat', 'ip'],
    ['hnsw-flat', 'hnsw-flat', 'l2'],
    ['idmap-flat-ip', 'id-map', 'ip'],
  ])('%s: structure, and exact search over it reproduces faiss', async (name, kind, metric) => {
    const index = await readFaissIndex(fixture('faiss', `${name}.faiss`));
    expect(index).toMatchObject({ kind, metric, dim: DIM });
    for (const [q, query] of queries.entries()) {
      // faiss pads with -1 when fewer than k vectors exist.
      expect(search(index, query, 5)).toEqual(
        WANT.results[name]!.labels[q]!.filter((id) => id >= 0),
      );
    }
  });

  test('flat and HNSW storage hold the vectors in insertion order', async () => {
    for (const name of ['flat-ip', 'flat-l2', 'hnsw-flat']) {
      const index = await readFaissIndex(fixture('faiss', `${name}.faiss`));
      expect(
        index.kind !== 'ivf-flat' && index.kind !== 'id-map' && Array.from(index.vectors),
      ).toEqual(VECTORS);
    }
  });

  test('IVF: centroids, lists and ids', async () => {
    const index = await readFaissIndex(fixture('faiss', 'ivf-flat.faiss'));
    if (index.kind !== 'ivf-flat') throw new Error('kind');
    expect(index).toMatchObject({ nlist: 4, count: 40, nprobe: 4 });
    expect(index.centroids.length).toBe(4 * DIM);
    const ids = index.lists.flatMap((l) => Array.from(l.ids)).sort((a, b) => a - b);
    expect(ids).toEqual([...Array(40).keys()]);
    for (const list of index.lists) {
      list.ids.forEach((id, i) =>
        expect(Array.from(list.vectors.subarray(i * DIM, (i + 1) * DIM))).toEqual(
          VECTORS.slice(id * DIM, (id + 1) * DIM),
        ),
      );
    }
    const sparse = await readFaissIndex(fixture('faiss', 'ivf-sparse-ip.faiss'));
    expect(
      sparse.kind === 'ivf-flat' && sparse.lists.filter((l) => l.ids.length > 0).length,
    ).toBeLessThanOrEqual(3);
  });

  test('HNSW graph fields', async () => {
    const index = await readFaissIndex(fixture('faiss', 'hnsw-flat.faiss'));
    if (index.kind !== 'hnsw-flat') throw new Error('kind');
    const { graph } = index;
    expect(graph.levels.length).toBe(40);
    expect(graph.offsets.length).toBe(41);
    expect(graph.neighbors.length).toBe(graph.offsets[40]);
    expect(graph.efSearch).toBe(64);
    expect(graph.efConstruction).toBe(40);
    expect(graph.entryPoint).toBeGreaterThanOrEqual(0);
    expect(graph.levels[graph.entryPoint]).toBe(graph.maxLevel + 1);
  });

  test('IndexIDMap ids', async () => {
    const index = await readFaissIndex(fixture('faiss', 'idmap-flat-ip.faiss'));
    expect(index.kind === 'id-map' && Array.from(index.ids.subarray(0, 3))).toEqual([
      1000, 1007, 1014,
    ]);
  });
});

describe('bad FAISS files fail with the file named', () => {
  const dir = tempDir();
  const patched = (name: string, edit: (bytes: Buffer) => Buffer) => {
    const path = join(dir, `${name}-${Math.random().toString(36).slice(2)}.faiss`);
    writeFileSync(path, edit(Buffer.from(readFileSync(fixture('faiss', `${name}.faiss`)))));
    return path;
  };

  test('unknown index type lists the supported ones', async () => {
    const path = patched('flat-ip', (b) => (b.write('IxPQ', 0, 'latin1'), b));
    await expect(readFaissIndex(path)).rejects.toThrow(
      /\.faiss: unsupported FAISS index type "IxPQ" \(supported: IxFI/,
    );
  });
  test('truncated and trailing bytes', async () => {
    await expect(
      readFaissIndex(patched('flat-ip', (b) => b.subarray(0, b.length - 5))),
    ).rejects.toThrow(/truncated FAISS index|overruns/);
    await expect(
      readFaissIndex(patched('flat-ip', (b) => Buffer.concat([b, Buffer.alloc(3)]))),
    ).rejects.toThrow(/trailing bytes/);
  });
  test('unsupported metric', async () => {
    // Header: fourcc(4) d(4) ntotal(8) dummy(16) is_trained(1) metric(4) at byte 33.
    const path = patched('flat-l2', (b) => (b.writeInt32LE(3, 33), b));
    await expect(readFaissIndex(path)).rejects.toThrow(/metric type 3 is not supported/);
  });
  test('on-disk and missing inverted lists', async () => {
    const at = (b: Buffer) => b.indexOf('ilar', 0, 'latin1');
    const ondisk = patched('ivf-flat', (b) => (b.write('ilod', at(b), 'latin1'), b));
    await expect(readFaissIndex(ondisk)).rejects.toThrow(/on-disk inverted lists \("ilod"\)/);
    const none = patched('ivf-flat', (b) =>
      Buffer.concat([b.subarray(0, at(b)), Buffer.from('il00', 'latin1')]),
    );
    await expect(readFaissIndex(none)).rejects.toThrow(/without inverted lists \("il00"\)/);
  });
  test('absurd vector counts fail before allocating', async () => {
    // The flat vector count (uint64) follows the 37-byte header.
    const path = patched('flat-ip', (b) => (b.writeBigUInt64LE(2n ** 50n, 37), b));
    await expect(readFaissIndex(path)).rejects.toThrow(/overruns the file/);
  });
});

describe('readIdsFile', () => {
  const dir = tempDir();
  test('RoutIR index.ids: one id per line', async () => {
    expect(await readIdsFile(fixture('faiss', 'index.ids'))).toEqual(
      [...Array(40).keys()].map((i) => `doc${i}`),
    );
  });
  test('no final newline, CRLF, ids with spaces, empty file', async () => {
    writeFileSync(join(dir, 'a.ids'), 'a b\r\nc\r\nd');
    expect(await readIdsFile(join(dir, 'a.ids'))).toEqual(['a b', 'c', 'd']);
    writeFileSync(join(dir, 'e.ids'), '');
    expect(await readIdsFile(join(dir, 'e.ids'))).toEqual([]);
  });
});
