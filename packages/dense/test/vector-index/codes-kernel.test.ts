import { describe, expect, it } from 'vitest';
import { float16Table } from '../../src/formats/float16.js';
import { trainAndAdd, type Metric } from '../../src/vector-index/index.js';
import { rowCodec, type RowCodec, type RowStorage } from '../../src/vector-index/row-codec.js';
import { MemoryRows } from '../../src/vector-index/row-store.js';
import { trainSq8Ranges } from '../../src/vector-index/scalar-quantizer.js';
import { ScanFlatIndex } from '../../src/vector-index/scan-flat.js';
import {
  CodesKernel,
  codesLayout,
  prepareQueries,
} from '../../src/vector-index/simd/codes-kernel.js';
import { SharedRows } from '../../src/vector-index/simd/shared-rows.js';
import { randomVectors } from './helpers.js';

/** `vectors` encoded into shared rows (segments of `segmentBytes`), with their codec. */
function encode(storage: RowStorage, vectors: Float32Array, dim: number, segmentBytes?: number) {
  const ranges = storage === 'sq8' ? trainSq8Ranges(vectors, dim) : undefined;
  const codec = rowCodec(storage, dim, ranges);
  const n = vectors.length / dim;
  const rows = SharedRows.tryAllocate(n, codec.rowBytes, 2, segmentBytes)!;
  rows.scan(0, n, (bytes, at, row, count) =>
    codec.encode(vectors.subarray(row * dim, (row + count) * dim), bytes, at),
  );
  return { codec, rows };
}

/** The kernel's scores (constant added, l2 negated) and the codec's, for every row and query. */
function bothScores(codec: RowCodec, rows: SharedRows, metric: Metric, queries: Float32Array) {
  const layout = codesLayout(rows, codec, metric);
  const kernel = new CodesKernel(layout, 1);
  const prepared = prepareQueries(layout, queries);
  const kernelScores: number[] = [];
  const codecScores: number[] = [];
  const out = new Float32Array(rows.count);
  for (let q = 0; q < prepared.count; q++) {
    const raw = kernel.rawScores(0, 0, rows.count, prepared, q);
    raw.forEach((s) => kernelScores.push(metric === 'l2' ? -s : prepared.bases[q]! + s));
    codec.scorer(queries, q * codec.dim, metric)(rows.segments[0]!, 0, rows.count, out);
    codecScores.push(...out);
  }
  return { kernelScores, codecScores };
}

function expectClose(actual: number[], expected: number[], relative = 1e-5) {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    if (Math.abs(a - e) > relative * Math.max(1, Math.abs(e))) expect(a).toBe(e);
  });
}

describe('codes.wat kernels against the JavaScript scorers', { timeout: 60_000 }, () => {
  it.each<[RowStorage, Metric, number]>([
    ['sq8', 'ip', 384],
    ['sq8', 'l2', 13],
    ['sq8', 'ip', 1],
    ['sq8', 'l2', 33],
    ['f16', 'ip', 7],
    ['f16', 'l2', 384],
    ['f16', 'ip', 17],
    ['f32', 'ip', 5],
    ['f32', 'l2', 29],
  ])('%s %s, dim %i: every row, every query', (storage, metric, dim) => {
    const vectors = randomVectors(301, dim, dim, false);
    const queries = randomVectors(19, dim, dim + 1, false);
    const { codec, rows } = encode(storage, vectors, dim);
    const { kernelScores, codecScores } = bothScores(codec, rows, metric, queries);
    expectClose(kernelScores, codecScores);
  });

  it('SQ8 at the ends of its ranges and with zero-width dimensions', () => {
    const dim = 21;
    const vectors = new Float32Array(40 * dim).map((_, i) => (i % 3 === 0 ? -3 : 2));
    for (let i = 0; i < 40; i++) vectors[i * dim + 5] = 0.25; // one value only: width 0
    const queries = randomVectors(3, dim, 9, false);
    for (const metric of ['ip', 'l2'] as const) {
      const { codec, rows } = encode('sq8', vectors, dim);
      const { kernelScores, codecScores } = bothScores(codec, rows, metric, queries);
      expectClose(kernelScores, codecScores);
    }
  });

  it('decodes every float16 bit pattern as the table does: zeros, subnormals, infinities, NaN', () => {
    const codec = rowCodec('f16', 1);
    const rows = SharedRows.tryAllocate(65536, 2, 1)!;
    new Uint16Array(rows.segments[0]!.buffer, rows.segments[0]!.byteOffset, 65536).forEach(
      (_, i, halves) => (halves[i] = i),
    );
    const layout = codesLayout(rows, codec, 'ip');
    const prepared = prepareQueries(layout, new Float32Array([1]));
    const decoded = new CodesKernel(layout, 0).rawScores(0, 0, 65536, prepared, 0);
    const table = float16Table();
    for (let bits = 0; bits < 65536; bits++) {
      // The kernel returns 1 * x summed from +0, so -0 comes back +0; every other value exactly.
      if (Number.isNaN(table[bits])) expect(decoded[bits]).toBeNaN();
      else if (table[bits] === 0) expect(decoded[bits]).toBe(0);
      else expect(decoded[bits]).toBe(table[bits]);
    }
  });

  it('a float row never reads the next row, even an infinity or NaN there', () => {
    for (const storage of ['f16', 'f32'] as const) {
      const dim = 3;
      const vectors = new Float32Array([1, 2, 3, Infinity, NaN, -Infinity, 4, 5, 6]);
      const { codec, rows } = encode(storage, vectors, dim);
      const layout = codesLayout(rows, codec, 'ip');
      const prepared = prepareQueries(layout, new Float32Array([1, 1, 1]));
      const raw = new CodesKernel(layout, 0).rawScores(0, 0, 3, prepared, 0);
      expect(raw[0]).toBe(6);
      expect(raw[2]).toBe(15);
    }
  });
});

describe(
  'ScanFlatIndex with the kernels answers as the JavaScript scan',
  { timeout: 60_000 },
  () => {
    it.each<[string, Metric, number]>([
      ['SQ8', 'ip', 48],
      ['SQ8', 'l2', 13],
      ['SQfp16', 'ip', 9],
      ['SQfp16', 'l2', 64],
    ])(
      '%s (%s), dim %i: in place on 2 threads (one or several memories), copied tile by tile, in JavaScript',
      (factory, metric, dim) => {
        const n = 9000;
        const vectors = randomVectors(n, dim, 31, metric === 'ip');
        const queries = randomVectors(37, dim, 32, metric === 'ip'); // three blocks of queries
        const built = trainAndAdd(factory, vectors, dim, metric, { seed: 1 }) as ScanFlatIndex;
        const { codec } = built;
        expect(built.rows).toBeInstanceOf(SharedRows);
        const bytes = bytesOf(built.rows);
        // Segments of 100 KiB: the rows span several shared memories, a kernel instance each.
        const segmented = SharedRows.tryAllocate(n, codec.rowBytes, 2, 100 << 10)!;
        segmented.scan(0, n, (target, at, row, count) =>
          target.set(bytes.subarray(row * codec.rowBytes, (row + count) * codec.rowBytes), at),
        );
        expect(segmented.memories.length).toBeGreaterThan(1);
        const indexes = [
          new ScanFlatIndex(codec, built.rows, metric, factory, { threads: 2 }),
          new ScanFlatIndex(codec, segmented, metric, factory, { threads: 2 }),
          new ScanFlatIndex(codec, MemoryRows.of(bytes, codec.rowBytes), metric, factory),
        ];
        const scalar = new ScanFlatIndex(codec, built.rows, metric, factory, { kernel: false });
        // k past the rows: every row comes back, -1 after (a few queries: the arrays are long).
        for (const [k, batch] of [
          [1, queries],
          [10, queries],
          [n + 5, queries.subarray(0, 2 * dim)],
        ] as const) {
          const expected = scalar.search(batch, k);
          for (const index of indexes) expect(index.search(batch, k)).toEqual(expected);
        }
        for (const index of indexes) index.close();
      },
    );
  },
);

/** All rows of a store as one array. */
function bytesOf(rows: { count: number; rowBytes: number; row(i: number): Uint8Array }) {
  const out = new Uint8Array(rows.count * rows.rowBytes);
  for (let i = 0; i < rows.count; i++) out.set(rows.row(i), i * rows.rowBytes);
  return out;
}
