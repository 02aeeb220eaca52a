// A corpus of dense passage vectors with cluster structure, in irserve-build-index's
// pre-encoded input layout: plain 2-D float32 `.npy` shards (`part-00000.npy`, written row
// block by row block, never whole) with their ids beside them (`part-00000.ids`, one a line).
// Vectors are unit vectors drawn around centroids (a Gaussian mixture: about one centroid per
// 250 passages, at most 4,096, chosen with a Zipfian skew so clusters differ in size), so
// neighbourhoods exist as in real embeddings; a query is a noisier draw around the centroid of
// a random passage. Queries are saved as raw float32 (`queries.f32`, dim floats each).
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gaussianOf, seeded, zipfSampler } from '../../random.mjs';

const { npyPreamble } = await import(
  new URL('../../../../packages/dense/dist/formats/npy.js', import.meta.url).href
);

/** Rows per shard (a 768-d shard is 192 MiB: the builder reads one at a time). */
const SHARD_ROWS = 65_536;
/** Rows generated and written at once. */
const BLOCK_ROWS = 1024;
/** Norm of a passage's offset from its centroid before normalising (cosine about 0.8). */
export const PASSAGE_NOISE = 0.75;
/** A query's offset: further out (a query is not its passage). */
export const QUERY_NOISE = 0.9;

/** Unit vectors around centroids: `draw(centroid, noise, out, at)` writes one. */
export function mixture({ random, dim, centroids }) {
  const gaussian = gaussianOf(random);
  const means = new Float32Array(centroids * dim);
  for (let c = 0; c < centroids; c++) unitDraw(gaussian, means, c * dim, dim, undefined, 0, 1);
  const pick = zipfSampler(random, centroids, 0.5);
  const draw = (centroid, noise, out, at) =>
    unitDraw(gaussian, out, at, dim, means, centroid * dim, noise / Math.sqrt(dim));
  return { pick: () => pick(), draw };
}

/** out[at..at+dim) = normalise(mean + sigma * N(0, 1)) (no mean: a random unit vector). */
function unitDraw(gaussian, out, at, dim, mean, from, sigma) {
  let norm = 0;
  for (let d = 0; d < dim; d++) {
    const x = (mean ? mean[from + d] : 0) + sigma * gaussian();
    out[at + d] = x;
    norm += x * x;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let d = 0; d < dim; d++) out[at + d] *= scale;
}

/** Writes `stream`'s chunk, waiting when its buffer is full. */
async function put(stream, chunk) {
  if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
}

const finish = (stream) =>
  new Promise((resolve, reject) => stream.end((error) => (error ? reject(error) : resolve())));

/**
 * Writes `size` passage vectors of `dim` (ids `0` .. `size - 1`) as shards under `dir/vectors`
 * and `queries` query vectors to `dir/queries.f32`; returns their paths and the dimension.
 */
export async function writeVectorCorpus({ dir, size, queries, dim = 768, seed = 7 }) {
  const random = seeded(seed);
  const centroids = Math.max(16, Math.min(4096, Math.round(size / 250)));
  const model = mixture({ random, dim, centroids });
  const shards = join(dir, `vectors-${dim}`);
  await mkdir(shards, { recursive: true });
  const block = new Float32Array(BLOCK_ROWS * dim);
  const queryCentroids = [];
  for (let first = 0, shard = 0; first < size; first += SHARD_ROWS, shard++) {
    const rows = Math.min(SHARD_ROWS, size - first);
    const name = join(shards, `part-${String(shard).padStart(5, '0')}`);
    const npy = createWriteStream(`${name}.npy`);
    const ids = createWriteStream(`${name}.ids`);
    await put(npy, npyPreamble('<f4', [rows, dim]));
    for (let at = 0; at < rows; at += BLOCK_ROWS) {
      const n = Math.min(BLOCK_ROWS, rows - at);
      const lines = [];
      for (let r = 0; r < n; r++) {
        const centroid = model.pick();
        model.draw(centroid, PASSAGE_NOISE, block, r * dim);
        if (queryCentroids.length < queries && random() < (queries * 2) / size)
          queryCentroids.push(centroid);
        lines.push(String(first + at + r));
      }
      await put(npy, new Uint8Array(block.buffer, 0, n * dim * 4).slice());
      await put(ids, `${lines.join('\n')}\n`);
    }
    await finish(npy);
    await finish(ids);
  }
  while (queryCentroids.length < queries) queryCentroids.push(model.pick());
  const query = new Float32Array(queries * dim);
  queryCentroids.forEach((centroid, q) => model.draw(centroid, QUERY_NOISE, query, q * dim));
  const queriesPath = join(dir, `queries-${dim}.f32`);
  await writeFile(queriesPath, query);
  return { corpus: shards, queries: queriesPath, dim };
}
