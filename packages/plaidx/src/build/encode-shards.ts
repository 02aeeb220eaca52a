/**
 * The builder's encoding pass: each shard becomes one chunk (`N.codes.npy`,
 * `N.residuals.npy`, `doclens.N.json`, `N.metadata.json`), its ids are appended to
 * `mapping.tsv` and its passages' centroids go to the IVF's runs. One shard's floats, codes and
 * residuals are in memory at a time.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Progress } from 'irserve';
import { formatBytes } from 'irserve/plugin';
import { compressRow, makeCodec, type ResidualCodec } from '../index/codec.js';
import { tokenAssigner, type CentroidGraphSettings } from './centroid-assignment.js';
import { BufferedOut, type IvfRuns } from './ivf-runs.js';
import { writeBytesNpy, writeIntNpy } from './npy-write.js';
import { shapeOf, type ShardShape, type ShardSource, type TokenShard } from './token-shards.js';
import type { TrainedCodec } from './train-codec.js';

export interface EncodedCorpus {
  passages: number;
  embeddings: number;
  chunks: number;
  /** Files written, relative to the output directory. */
  files: string[];
}

export interface EncodeSettings {
  dim: number;
  nbits: number;
  /** Threads for the centroid assignment (0: every core). */
  threads: number;
  /** Most bytes of floats one shard may hold. */
  shardBytes: number;
  /** Assign through an HNSW graph over the centroids instead of exactly. */
  centroidGraph: CentroidGraphSettings | undefined;
}

/**
 * Encodes every shard of `source` into `dir`, feeding `ivf` and writing `mapping.tsv`.
 *
 * @example await encodeShards(source, codec, 'idx', ivfRuns, { dim, nbits: 2, threads: 0, shardBytes }, bar)
 */
export async function encodeShards(
  source: ShardSource,
  trained: TrainedCodec,
  dir: string,
  ivf: IvfRuns,
  settings: EncodeSettings,
  bar: Progress,
): Promise<EncodedCorpus> {
  const { dim } = settings;
  const codec = makeCodec(settings.nbits, dim, trained.cutoffs, trained.weights);
  const mapping = await BufferedOut.create(join(dir, 'mapping.tsv'), 1 << 20);
  const files: string[] = [];
  const done = { passages: 0, embeddings: 0 };
  const utf8 = new TextEncoder();
  // One assigner for every shard: the exact one keeps its threads, the graph is built once.
  const assigner = tokenAssigner(
    trained.centroids,
    dim,
    'ip',
    settings.threads,
    settings.centroidGraph,
  );
  try {
    for (let c = 0; c < source.count; c++) {
      const shard = await source.load(c);
      checkShard(shapeOf(shard), source.label(c), settings);
      const codes = assigner.assign(shard.features);
      const packed = packResiduals(shard, codes, trained.centroids, codec);
      await writeIntNpy(join(dir, `${c}.codes.npy`), codes, 'int64');
      await writeBytesNpy(join(dir, `${c}.residuals.npy`), packed, [codes.length, codec.packedDim]);
      await writeFile(join(dir, `doclens.${c}.json`), JSON.stringify(Array.from(shard.doclens)));
      const meta = {
        passage_offset: done.passages,
        num_passages: shard.doclens.length,
        num_embeddings: codes.length,
        embedding_offset: done.embeddings,
      };
      await writeFile(join(dir, `${c}.metadata.json`), JSON.stringify(meta));
      files.push(`${c}.codes.npy`, `${c}.residuals.npy`, `doclens.${c}.json`, `${c}.metadata.json`);
      let row = 0;
      for (let p = 0; p < shard.doclens.length; p++) {
        const end = row + shard.doclens[p]!;
        await ivf.addPassage(done.passages + p, codes.subarray(row, end));
        row = end;
      }
      await mapping.write(
        utf8.encode(shard.ids.map((id, p) => `${done.passages + p}\t${id}\n`).join('')),
      );
      done.passages += shard.doclens.length;
      done.embeddings += codes.length;
      bar.tick();
    }
  } finally {
    assigner.close();
    await mapping.close();
  }
  bar.done();
  return { ...done, chunks: source.count, files: [...files, 'mapping.tsv'] };
}

/** Throws unless the shard has the corpus's dimension and fits its share of the budget. */
export function checkShard(shape: ShardShape, label: string, settings: EncodeSettings): void {
  if (shape.dim !== settings.dim)
    throw new Error(`${label}: dimension ${shape.dim}, expected ${settings.dim}`);
  // Loaded as float32, whatever the file's float type.
  const bytes = shape.rows * shape.dim * Float32Array.BYTES_PER_ELEMENT;
  if (bytes > settings.shardBytes)
    throw new Error(
      `${label}: ${formatBytes(bytes)} of token embeddings, more than the ${formatBytes(settings.shardBytes)} a shard may hold under --memory_budget (half of it): split the shards or raise --memory_budget`,
    );
}

/** Each token's residual from its centroid, packed `dim * nbits / 8` bytes per token. */
function packResiduals(
  shard: TokenShard,
  codes: Int32Array,
  centroids: Float32Array,
  codec: ResidualCodec,
): Uint8Array {
  const { dim } = codec;
  const residual = new Float32Array(dim);
  const packed = new Uint8Array(codes.length * codec.packedDim);
  for (let r = 0; r < codes.length; r++) {
    const centroid = codes[r]! * dim;
    for (let j = 0; j < dim; j++)
      residual[j] = shard.features[r * dim + j]! - centroids[centroid + j]!;
    compressRow(codec, residual, 0, packed, r);
  }
  return packed;
}
