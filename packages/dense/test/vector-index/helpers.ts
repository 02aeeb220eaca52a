import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { combinedChecksum } from '../../src/vector-index/manifest.js';
import { seededRandom } from '../../src/vector-index/random.js';
import type { Metric, SearchResult } from '../../src/vector-index/index.js';

/** `n` seeded random vectors; unit length unless `unit` is false. */
export function randomVectors(n: number, dim: number, seed: number, unit = true): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      // Sum of uniforms: roughly Gaussian, so directions are spread evenly.
      const x = random() + random() + random() - 1.5;
      out[i * dim + j] = x;
      norm += x * x;
    }
    const scale = unit ? 1 / Math.sqrt(norm) : 1;
    for (let j = 0; j < dim; j++) out[i * dim + j]! *= scale;
  }
  return out;
}

/**
 * `n` seeded unit vectors drawn around `clusters` random unit centres (offsets of norm about
 * `noise`): neighbourhoods exist, as in real
 * embeddings, which uniform random vectors lack.
 */
export function clusteredVectors(
  n: number,
  dim: number,
  clusters: number,
  seed: number,
  noise = 0.6,
): Float32Array {
  const random = seededRandom(seed);
  const centres = randomVectors(clusters, dim, seed + 1);
  const out = new Float32Array(n * dim);
  const sigma = noise / Math.sqrt(dim / 4);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(random() * clusters);
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const x = centres[c * dim + j]! + sigma * (random() + random() + random() - 1.5);
      out[i * dim + j] = x;
      norm += x * x;
    }
    for (let j = 0; j < dim; j++) out[i * dim + j]! /= Math.sqrt(norm);
  }
  return out;
}

/** Brute-force top-k labels in float64, the reference every index is measured against. */
export function exactTopK(
  data: Float32Array,
  queries: Float32Array,
  dim: number,
  k: number,
  metric: Metric,
): Int32Array {
  const n = data.length / dim;
  const nq = queries.length / dim;
  const out = new Int32Array(nq * k);
  const scores = new Float64Array(n);
  for (let q = 0; q < nq; q++) {
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < dim; j++) {
        const a = queries[q * dim + j]!;
        const b = data[i * dim + j]!;
        s += metric === 'ip' ? a * b : -(a - b) * (a - b);
      }
      scores[i] = s;
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
    out.set(order.slice(0, k), q * k);
  }
  return out;
}

/** Mean fraction of the true top k found in the result's top k. */
export function recall(result: SearchResult, truth: Int32Array, k: number): number {
  const nq = truth.length / k;
  let hits = 0;
  for (let q = 0; q < nq; q++) {
    const want = new Set(truth.subarray(q * k, (q + 1) * k));
    for (let i = 0; i < k; i++) if (want.has(result.labels[q * k + i]!)) hits++;
  }
  return hits / (nq * k);
}

/** Makes rows file `name` of index `dir` as written before page checksums (no `<name>.crc32`). */
export async function withoutPageChecksums(dir: string, name: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  delete manifest.files[name].pageBytes;
  delete manifest.files[`${name}.crc32`];
  manifest.checksum = combinedChecksum(manifest.files);
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  await rm(join(dir, `${name}.crc32`));
}
