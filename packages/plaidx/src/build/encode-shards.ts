/**
 * The builder's encoding pass: each shard becomes one chunk (`N.codes.npy`,
 * `N.residuals.npy`, `doclens.N.json`, `N.metadata.json`); codes and ids are kept for the
 * IVF and `mapping.tsv`. One shard's floats are in memory at a time.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assign } from '@irserve/dense';
import type { Progress } from 'irserve';
import { compressRow, makeCodec } from '../index/codec.js';
import { writeBytesNpy, writeIntNpy } from './npy-write.js';
import type { ShardSource } from './token-shards.js';
import type { TrainedCodec } from './train-codec.js';

export interface EncodedCorpus {
  codes: Int32Array;
  doclens: Int32Array;
  ids: string[];
  chunks: number;
  /** Files written, relative to the output directory. */
  files: string[];
}

/**
 * Encodes every shard of `source` into `dir`.
 *
 * @example await encodeShards(source, codec, 'idx', 2, { passages, embeddings, dim }, bar)
 */
export async function encodeShards(
  source: ShardSource,
  trained: TrainedCodec,
  dir: string,
  nbits: number,
  counts: { passages: number; embeddings: number; dim: number },
  bar: Progress,
): Promise<EncodedCorpus> {
  const { dim } = counts;
  const codec = makeCodec(nbits, dim, trained.cutoffs, trained.weights);
  const codes = new Int32Array(counts.embeddings);
  const doclens = new Int32Array(counts.passages);
  const ids: string[] = [];
  const files: string[] = [];
  let embeddingOffset = 0;
  for (let c = 0; c < source.count; c++) {
    const shard = await source.load(c);
    if (shard.dim !== dim)
      throw new Error(`${source.label(c)}: dimension ${shard.dim}, expected ${dim}`);
    const rows = shard.features.length / dim;
    const chunkCodes = assign(trained.centroids, shard.features, dim, 'ip');
    const residual = new Float32Array(dim);
    const packed = new Uint8Array(rows * codec.packedDim);
    for (let r = 0; r < rows; r++) {
      const centroid = chunkCodes[r]! * dim;
      for (let j = 0; j < dim; j++)
        residual[j] = shard.features[r * dim + j]! - trained.centroids[centroid + j]!;
      compressRow(codec, residual, 0, packed, r);
    }
    await writeIntNpy(join(dir, `${c}.codes.npy`), chunkCodes, 'int64');
    await writeBytesNpy(join(dir, `${c}.residuals.npy`), packed, [rows, codec.packedDim]);
    await writeFile(join(dir, `doclens.${c}.json`), JSON.stringify(Array.from(shard.doclens)));
    const meta = {
      passage_offset: ids.length,
      num_passages: shard.doclens.length,
      num_embeddings: rows,
      embedding_offset: embeddingOffset,
    };
    await writeFile(join(dir, `${c}.metadata.json`), JSON.stringify(meta));
    files.push(`${c}.codes.npy`, `${c}.residuals.npy`, `doclens.${c}.json`, `${c}.metadata.json`);
    codes.set(chunkCodes, embeddingOffset);
    doclens.set(shard.doclens, ids.length);
    for (const id of shard.ids) ids.push(id);
    embeddingOffset += rows;
    bar.tick();
  }
  bar.done();
  return { codes, doclens, ids, chunks: source.count, files };
}
