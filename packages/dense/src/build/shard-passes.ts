/**
 * The builder's passes over its input, one shard in memory at a time: a survey (how many
 * vectors, their dimension, the largest shard; the ids written out as it goes), gathering a
 * training sample by position, and the vectors in chunks, in order.
 */
import { listShards, readShard } from '../formats/index.js';
import type { Shard } from '../formats/types.js';
import { maxSquaredNorm } from '../vector-index/sq8.js';

/** Where the builder gets its vectors: a count of shards and a loader. */
export interface VectorShards {
  readonly count: number;
  load(index: number): Promise<Shard>;
  label(index: number): string;
}

/** The shard files of `inputDir` in name order. */
export async function fileVectorShards(inputDir: string): Promise<VectorShards> {
  const paths = await listShards(inputDir);
  return { count: paths.length, load: (i) => readShard(paths[i]!), label: (i) => paths[i]! };
}

export interface Survey {
  count: number;
  dim: number;
  /** Vectors in each shard (after dropping rows with a NaN). */
  rows: number[];
  /** Bytes the largest shard takes in memory as float32 rows. */
  largestShardBytes: number;
  /** The largest |x|² (HNSW SQ8's mapping needs it). */
  maxSquaredNorm: number;
}

/** Reads every shard once: counts, checks dimensions and ids, hands each id list to `onIds`. */
export async function surveyShards(
  shards: VectorShards,
  onIds: (ids: string[]) => Promise<void>,
  onShard: (done: number) => void,
): Promise<Survey> {
  const survey: Survey = { count: 0, dim: 0, rows: [], largestShardBytes: 0, maxSquaredNorm: 0 };
  for (let i = 0; i < shards.count; i++) {
    const shard = await shards.load(i);
    if (survey.dim !== 0 && shard.dim !== survey.dim)
      throw new Error(
        `${shards.label(i)}: dimension ${shard.dim} differs from ${survey.dim} in earlier shards`,
      );
    survey.dim = shard.dim;
    const bad = shard.ids.findIndex((id) => /[\r\n]/.test(id));
    if (bad >= 0)
      throw new Error(
        `${shards.label(i)}: id ${JSON.stringify(shard.ids[bad])} holds a line break`,
      );
    survey.count += shard.count;
    survey.rows.push(shard.count);
    survey.largestShardBytes = Math.max(survey.largestShardBytes, shard.features.byteLength);
    const sq = maxSquaredNorm(shard.features, shard.dim);
    survey.maxSquaredNorm = Math.max(survey.maxSquaredNorm, sq);
    await onIds(shard.ids);
    onShard(i + 1);
  }
  if (survey.count === 0) throw new Error('the shards hold no vectors');
  return survey;
}

/** The rows at `positions` (ascending) of the whole input, in order. */
export async function gatherPositions(
  shards: VectorShards,
  survey: Survey,
  positions: Int32Array,
  onShard: (done: number) => void,
): Promise<Float32Array> {
  const { dim } = survey;
  const out = new Float32Array(positions.length * dim);
  let next = 0;
  let first = 0;
  for (let i = 0; i < shards.count && next < positions.length; i++) {
    const end = first + survey.rows[i]!;
    if (positions[next]! < end) {
      const { features } = await shards.load(i);
      for (; next < positions.length && positions[next]! < end; next++) {
        const row = positions[next]! - first;
        out.set(features.subarray(row * dim, (row + 1) * dim), next * dim);
      }
    }
    first = end;
    onShard(i + 1);
  }
  return out;
}

/**
 * Calls `fn` with the input's vectors in order, in blocks of `blockRows` (the last may be
 * shorter) that run across shard boundaries, with the position of each block's first vector:
 * the same blocks whatever the shards, so builders whose result depends on how vectors are
 * batched (usearch's graph does) match the in-memory build.
 */
export async function forEachChunk(
  shards: VectorShards,
  dim: number,
  blockRows: number,
  fn: (vectors: Float32Array, first: number) => Promise<void>,
): Promise<void> {
  let block = new Float32Array(blockRows * dim);
  let filled = 0;
  let first = 0;
  for (let i = 0; i < shards.count; i++) {
    const { features } = await shards.load(i);
    for (let at = 0; at < features.length;) {
      const n = Math.min(features.length - at, block.length - filled);
      block.set(features.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === block.length) {
        await fn(block, first);
        first += blockRows;
        // `fn` may have handed the block to a thread: never refill it.
        block = new Float32Array(blockRows * dim);
        filled = 0;
      }
    }
  }
  if (filled > 0) await fn(block.subarray(0, filled), first);
}
