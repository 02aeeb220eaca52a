/**
 * The builder's training: count the corpus, sample passages (as ColBERT does, but no more
 * than the memory budget holds), and train the codec on their tokens.
 */
import { samplePositions, seededRandom } from '@irserve/dense';
import type { Progress } from 'irserve';
import { formatBytes } from 'irserve/plugin';
import { checkShard } from './encode-shards.js';
import type { CentroidGraphSettings } from './centroid-assignment.js';
import { shapeOf, type ShardSource } from './token-shards.js';
import { trainCodec, type TrainedCodec } from './train-codec.js';

export interface Counts {
  passages: number;
  embeddings: number;
  dim: number;
}

export interface TrainSettings {
  nbits: number;
  partitions: number | undefined;
  kmeansIterations: number;
  samplePassages: number | undefined;
  seed: number;
  threads: number;
  /** Assign through an HNSW graph over the centroids instead of exactly. */
  centroidGraph: CentroidGraphSettings | undefined;
  /** Most bytes of token embeddings the sample may hold. */
  sampleBytes: number;
  /** Most bytes of floats one shard may hold. */
  shardBytes: number;
  log: (line: string) => void;
}

type Bar = (label: string, total: number) => Progress;

/**
 * Counts passages and tokens, checking every shard's dimension and size. The values of the
 * embeddings are checked (finite) where the sampling and encoding passes load them.
 */
export async function countShards(
  source: ShardSource,
  settings: TrainSettings,
  bar: Progress,
): Promise<Counts> {
  const counts: Counts = { passages: 0, embeddings: 0, dim: 0 };
  for (let i = 0; i < source.count; i++) {
    // Headers where the source can read them: the embeddings are read by the later passes.
    const shape = source.measure ? await source.measure(i) : shapeOf(await source.load(i));
    if (counts.dim !== 0 && shape.dim !== counts.dim)
      throw new Error(
        `${source.label(i)}: dimension ${shape.dim} differs from the first shard's ${counts.dim}`,
      );
    counts.dim = shape.dim;
    checkShard(shape, source.label(i), { ...settings, dim: shape.dim });
    counts.passages += shape.passages;
    counts.embeddings += shape.rows;
    bar.tick();
  }
  bar.done();
  if (counts.embeddings === 0) throw new Error('the shards hold no token embeddings');
  return counts;
}

/** ColBERT's defaults: the sample and partition counts grow with the square root of the corpus. */
export function defaultSizes(
  passages: number,
  embeddings: number,
): { sample: number; partitions: number } {
  return {
    sample: Math.min(passages, 1 + Math.floor(16 * Math.sqrt(120 * passages))),
    partitions: 2 ** Math.floor(Math.log2(16 * Math.sqrt(embeddings))),
  };
}

/** Passages to sample: ColBERT's count (or the user's), lowered to what the budget holds. */
function samplePassages(counts: Counts, settings: TrainSettings): number {
  const wanted = Math.min(
    counts.passages,
    settings.samplePassages ?? defaultSizes(counts.passages, counts.embeddings).sample,
  );
  const bytesPerPassage = (counts.embeddings / counts.passages) * counts.dim * 4;
  // 10% headroom: sampled passages may be longer than the average.
  const fits = Math.max(1, Math.floor(settings.sampleBytes / bytesPerPassage / 1.1));
  if (wanted <= fits) return wanted;
  settings.log(
    `training on ${fits} sampled passages instead of ${wanted}: their tokens would need about ${formatBytes(wanted * bytesPerPassage)}, more than the ${formatBytes(settings.sampleBytes)} --memory_budget leaves for training (a quarter of it)`,
  );
  return fits;
}

/** Samples passages and trains the codec on their tokens. */
export async function trainOnSample(
  source: ShardSource,
  counts: Counts,
  settings: TrainSettings,
  bar: Bar,
): Promise<TrainedCodec> {
  const { dim } = counts;
  const defaults = defaultSizes(counts.passages, counts.embeddings);
  const wanted = samplePositions(
    counts.passages,
    samplePassages(counts, settings),
    seededRandom(settings.seed),
  );
  const rows = await gatherSample(source, wanted, dim, bar('sampling', source.count));
  // Every 20th sampled token is held out for the buckets (ColBERT holds out 5%).
  const { training, heldout } = splitHeldout(rows, dim);
  const trainingRows = training.length / dim;
  const partitions = settings.partitions ?? Math.min(defaults.partitions, trainingRows);
  if (partitions < 1 || partitions > trainingRows)
    throw new Error(
      `--partitions ${partitions} needs at least as many training tokens; the sample has ${trainingRows} (raise the sample or lower --partitions)`,
    );
  const iterations = settings.kmeansIterations;
  // faiss (which ColBERT's k-means is) trains on at most 256 points per centroid.
  const capped =
    trainingRows > 256 * partitions ? training.subarray(0, 256 * partitions * dim) : training;
  const progress = bar(
    `k-means (${partitions} centroids, ${capped.length / dim} tokens)`,
    iterations,
  );
  const codec = trainCodec(capped, heldout.length > 0 ? heldout : capped, {
    dim,
    partitions,
    nbits: settings.nbits,
    iterations,
    seed: settings.seed,
    threads: settings.threads,
    ...(settings.centroidGraph ? { centroidGraph: settings.centroidGraph } : {}),
    onIteration: () => progress.tick(),
  });
  progress.done();
  return codec;
}
async function gatherSample(
  source: ShardSource,
  wanted: Int32Array,
  dim: number,
  bar: Progress,
): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  let next = 0;
  let pid = 0;
  for (let i = 0; i < source.count; i++) {
    const shard = await source.load(i);
    let row = 0;
    for (const length of shard.doclens) {
      if (wanted[next] === pid) {
        parts.push(shard.features.slice(row * dim, (row + length) * dim));
        next++;
      }
      row += length;
      pid++;
    }
    bar.tick();
  }
  bar.done();
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function splitHeldout(
  rows: Float32Array,
  dim: number,
): { training: Float32Array; heldout: Float32Array } {
  const count = rows.length / dim;
  const held = count >= 40 ? Math.min(50_000, Math.floor(count / 20)) : 0;
  const heldRows: number[] = [];
  for (let r = 0; r < count && heldRows.length < held; r += 20) heldRows.push(r);
  const heldSet = new Set(heldRows);
  const training = new Float32Array((count - heldRows.length) * dim);
  const heldout = new Float32Array(heldRows.length * dim);
  let t = 0;
  let h = 0;
  for (let r = 0; r < count; r++) {
    const row = rows.subarray(r * dim, (r + 1) * dim);
    if (heldSet.has(r)) heldout.set(row, h++ * dim);
    else training.set(row, t++ * dim);
  }
  return { training, heldout };
}
