/**
 * A PLAID index in memory: centroids, the residual codec, the IVF (centroid -> passages) and
 * every token's centroid code and packed residual, concatenated over the chunks. Files
 * written by ColBERT carry no checksums, so each part is checked for the sizes and shapes the
 * others imply, and every mismatch names its file.
 */
import { join } from 'node:path';
import { FormatError } from '@irserve/dense';
import { expectShape, toFloat32, toInt32, toUint8 } from '../formats/tensor.js';
import { makeCodec, type ResidualCodec } from './codec.js';
import { indexFiles, type Layout } from './index-files.js';
import { pidLists } from './ivf.js';
import { verifyManifest } from './manifest.js';
import { readDoclens, readIndexMetadata } from './metadata.js';

export interface PlaidIndex {
  readonly dir: string;
  readonly layout: Layout;
  readonly dim: number;
  readonly nbits: number;
  readonly numCentroids: number;
  readonly numPassages: number;
  readonly numEmbeddings: number;
  /** numCentroids x dim, row-major. */
  readonly centroids: Float32Array;
  /** |c|² of each centroid (1 for ColBERT's normalised centroids, up to float16 rounding). */
  readonly centroidSquaredNorms: Float32Array;
  readonly codec: ResidualCodec;
  /** Passages of centroid c: `ivfPids[ivfOffsets[c] .. ivfOffsets[c + 1]]`, ascending. */
  readonly ivfOffsets: Int32Array;
  readonly ivfPids: Int32Array;
  readonly doclens: Int32Array;
  /** First embedding of passage p (length numPassages + 1). */
  readonly docOffsets: Float64Array;
  readonly codes: Int32Array;
  /** numEmbeddings x codec.packedDim. */
  readonly residuals: Uint8Array;
}

export interface OpenOptions {
  /** Called after each chunk is read. */
  onChunk?: (done: number, total: number) => void;
  /** Check the sha256 of every file against `irserve-manifest.json`, when present (default true). */
  verifyChecksums?: boolean;
}

/**
 * Opens a PLAID index directory in either layout.
 *
 * @example const index = await openPlaidIndex('indexes/msmarco.nbits=2'); index.numPassages
 */
export async function openPlaidIndex(dir: string, options: OpenOptions = {}): Promise<PlaidIndex> {
  const files = await indexFiles(dir);
  if (options.verifyChecksums ?? true) await verifyManifest(dir);
  const meta = await readIndexMetadata(dir);
  const { tensor: centroidTensor, file: centroidFile } = await files.centroids();
  expectShape(centroidTensor, [undefined, undefined], centroidFile, 'centroids');
  const [numCentroids = 0, dim = 0] = centroidTensor.shape;
  if ((dim * meta.nbits) % 8 !== 0)
    throw new FormatError(
      centroidFile,
      `dimension ${dim} times nbits ${meta.nbits} is not a whole number of bytes`,
    );
  const centroids = toFloat32(centroidTensor, centroidFile);
  const buckets = await files.buckets();
  expectShape(
    buckets.cutoffs,
    [2 ** meta.nbits - 1],
    buckets.file,
    `bucket cutoffs for nbits ${meta.nbits}`,
  );
  expectShape(
    buckets.weights,
    [2 ** meta.nbits],
    buckets.file,
    `bucket weights for nbits ${meta.nbits}`,
  );
  const codec = makeCodec(
    meta.nbits,
    dim,
    toFloat32(buckets.cutoffs, buckets.file),
    toFloat32(buckets.weights, buckets.file),
  );

  const perChunk: number[][] = [];
  for (let c = 0; c < meta.numChunks; c++) perChunk.push(await readDoclens(dir, c));
  const doclens = Int32Array.from(perChunk.flat());
  const docOffsets = new Float64Array(doclens.length + 1);
  for (let p = 0; p < doclens.length; p++) docOffsets[p + 1] = docOffsets[p]! + doclens[p]!;
  const numEmbeddings = docOffsets[doclens.length]!;
  if (meta.numEmbeddings !== undefined && meta.numEmbeddings !== numEmbeddings)
    throw new FormatError(
      join(dir, 'metadata.json'),
      `num_embeddings is ${meta.numEmbeddings} but the doclens files sum to ${numEmbeddings}`,
    );

  const codes = new Int32Array(numEmbeddings);
  const residuals = new Uint8Array(numEmbeddings * codec.packedDim);
  let at = 0;
  for (let c = 0; c < meta.numChunks; c++) {
    const chunk = await files.chunk(c);
    const rows = perChunk[c]!.reduce((a, b) => a + b, 0);
    const [codesFile, residualsFile] = chunk.files;
    expectShape(
      chunk.codes,
      [rows],
      codesFile,
      `codes of chunk ${c} (doclens.${c}.json sums to ${rows})`,
    );
    expectShape(
      chunk.residuals,
      [rows, codec.packedDim],
      residualsFile,
      `residuals of chunk ${c} (dim ${dim}, nbits ${meta.nbits})`,
    );
    const chunkCodes = toInt32(chunk.codes, codesFile);
    for (let i = 0; i < rows; i++) {
      const code = chunkCodes[i]!;
      if (code < 0 || code >= numCentroids)
        throw new FormatError(
          codesFile,
          `code ${code} at row ${i} is not a centroid (0..${numCentroids - 1})`,
        );
    }
    // One copy into the index's array; the chunk's file buffer is released afterwards, so
    // the index never needs to fit in memory twice.
    codes.set(chunkCodes, at);
    residuals.set(toUint8(chunk.residuals, residualsFile), at * codec.packedDim);
    at += rows;
    options.onChunk?.(c + 1, meta.numChunks);
  }
  const ivf = await files.ivf();
  const { offsets, pids } = pidLists(ivf, numCentroids, docOffsets);
  return {
    dir,
    layout: files.layout,
    dim,
    nbits: meta.nbits,
    numCentroids,
    numPassages: doclens.length,
    numEmbeddings,
    centroids,
    centroidSquaredNorms: squaredNorms(centroids, dim),
    codec,
    ivfOffsets: offsets,
    ivfPids: pids,
    doclens,
    docOffsets,
    codes,
    residuals,
  };
}

function squaredNorms(rows: Float32Array, dim: number): Float32Array {
  const out = new Float32Array(dim === 0 ? 0 : rows.length / dim);
  for (let r = 0; r < out.length; r++) {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += rows[r * dim + j]! * rows[r * dim + j]!;
    out[r] = sum;
  }
  return out;
}
