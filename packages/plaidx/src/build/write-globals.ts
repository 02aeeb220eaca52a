/**
 * The index-wide files of a built index: centroids, buckets, average residual, the IVF,
 * `metadata.json`, `plan.json`, and last the checksummed manifest (`mapping.tsv` and the
 * chunks are written by the encoding pass).
 */
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeNpy } from '@irserve/dense';
import { writeManifest } from '../index/manifest.js';
import { assignmentLabel, type CentroidGraphSettings } from './centroid-assignment.js';
import type { EncodedCorpus } from './encode-shards.js';
import type { IvfRuns } from './ivf-runs.js';
import type { TrainedCodec } from './train-codec.js';

interface GlobalSettings {
  nbits: number;
  dim: number;
  kmeansIterations: number;
  centroidGraph: CentroidGraphSettings | undefined;
}

/** Writes the files; resolves to the index's size in bytes. */
export async function writeGlobals(
  dir: string,
  codec: TrainedCodec,
  corpus: EncodedCorpus,
  ivf: IvfRuns,
  settings: GlobalSettings,
): Promise<number> {
  const partitions = codec.centroids.length / settings.dim;
  await writeCodecFiles(dir, codec, settings.dim, partitions);
  await ivf.writeIvf(join(dir, 'ivf.npy'), join(dir, 'ivf_lengths.npy'));
  await writeMetadataFiles(dir, corpus, settings, partitions);
  const names = [
    ...corpus.files,
    'centroids.npy',
    'bucket_cutoffs.npy',
    'bucket_weights.npy',
    'avg_residual.npy',
    'ivf.npy',
    'ivf_lengths.npy',
    'metadata.json',
    'plan.json',
  ];
  await writeManifest(dir, names);
  return totalSize(dir, names);
}

/** Centroids, bucket cutoffs and weights, and the average residual. */
async function writeCodecFiles(
  dir: string,
  codec: TrainedCodec,
  dim: number,
  partitions: number,
): Promise<void> {
  await writeNpy(join(dir, 'centroids.npy'), codec.centroids, [partitions, dim]);
  await writeNpy(join(dir, 'bucket_cutoffs.npy'), codec.cutoffs, [codec.cutoffs.length]);
  await writeNpy(join(dir, 'bucket_weights.npy'), codec.weights, [codec.weights.length]);
  await writeNpy(join(dir, 'avg_residual.npy'), codec.avgResidual, [dim]);
}

/** `metadata.json` and `plan.json`, with the same `config` in both, as ColBERT writes them. */
async function writeMetadataFiles(
  dir: string,
  corpus: EncodedCorpus,
  settings: GlobalSettings,
  partitions: number,
): Promise<void> {
  const { dim, nbits } = settings;
  const { embeddings, passages } = corpus;
  // ColBERT's readers ignore config keys they do not know, as they do `built_by`.
  const assignment = assignmentLabel(settings.centroidGraph);
  const config = {
    nbits,
    dim,
    kmeans_niters: settings.kmeansIterations,
    built_by: 'irserve-build-plaid-index',
    ...(assignment ? { centroid_assignment: assignment } : {}),
  };
  const avgDoclen = passages === 0 ? 0 : embeddings / passages;
  const metadata = {
    config,
    num_chunks: corpus.chunks,
    num_partitions: partitions,
    num_embeddings: embeddings,
    avg_doclen: avgDoclen,
    nbits,
    num_documents: passages,
  };
  await writeFile(join(dir, 'metadata.json'), JSON.stringify(metadata, null, 2) + '\n');
  const plan = {
    config,
    num_chunks: corpus.chunks,
    num_partitions: partitions,
    num_embeddings_est: embeddings,
    avg_doclen_est: avgDoclen,
  };
  await writeFile(join(dir, 'plan.json'), JSON.stringify(plan, null, 2) + '\n');
}

/** The summed size in bytes of the named files of `dir`. */
async function totalSize(dir: string, names: string[]): Promise<number> {
  let bytes = 0;
  for (const name of names) bytes += (await stat(join(dir, name))).size;
  return bytes;
}
