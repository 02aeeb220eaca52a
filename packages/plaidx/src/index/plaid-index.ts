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
import { indexFiles, type IndexFiles, type Layout } from './index-files.js';
import { pidLists } from './ivf.js';
import { verifyManifest } from './manifest.js';
import { readDoclens, readIndexMetadata, type IndexMetadata } from './metadata.js';

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
  const { centroids, numCentroids, dim } = await readCentroids(files, meta.nbits);
  const codec = await readCodec(files, meta.nbits, dim);
  const passages = await readPassageLayout(dir, meta);
  const { codes, residuals } = await readChunks(files, meta, passages, {
    codec,
    dim,
    numCentroids,
    onChunk: options.onChunk,
  });
  const ivf = await files.ivf();
  const { offsets, pids } = pidLists(ivf, numCentroids, passages.docOffsets);
  return {
    dir,
    layout: files.layout,
    dim,
    nbits: meta.nbits,
    numCentroids,
    numPassages: passages.doclens.length,
    numEmbeddings: passages.numEmbeddings,
    centroids,
    centroidSquaredNorms: squaredNorms(centroids, dim),
    codec,
    ivfOffsets: offsets,
    ivfPids: pids,
    doclens: passages.doclens,
    docOffsets: passages.docOffsets,
    codes,
    residuals,
  };
}

/** Reads the centroids; `dim` must pack into whole bytes at `nbits` per dimension. */
async function readCentroids(
  files: IndexFiles,
  nbits: number,
): Promise<{ centroids: Float32Array; numCentroids: number; dim: number }> {
  const { tensor, file } = await files.centroids();
  expectShape(tensor, [undefined, undefined], file, 'centroids');
  const [numCentroids = 0, dim = 0] = tensor.shape;
  if ((dim * nbits) % 8 !== 0)
    throw new FormatError(
      file,
      `dimension ${dim} times nbits ${nbits} is not a whole number of bytes`,
    );
  return { centroids: toFloat32(tensor, file), numCentroids, dim };
}

/** Reads the bucket cutoffs and weights and builds the residual codec from them. */
async function readCodec(files: IndexFiles, nbits: number, dim: number): Promise<ResidualCodec> {
  const buckets = await files.buckets();
  expectShape(buckets.cutoffs, [2 ** nbits - 1], buckets.file, `bucket cutoffs for nbits ${nbits}`);
  expectShape(buckets.weights, [2 ** nbits], buckets.file, `bucket weights for nbits ${nbits}`);
  return makeCodec(
    nbits,
    dim,
    toFloat32(buckets.cutoffs, buckets.file),
    toFloat32(buckets.weights, buckets.file),
  );
}

/** Token counts per passage, from every chunk's doclens file, and where each passage starts. */
interface PassageLayout {
  /** The doclens of each chunk, as read (chunk c holds `perChunk[c].length` passages). */
  perChunk: number[][];
  doclens: Int32Array;
  docOffsets: Float64Array;
  numEmbeddings: number;
}

/** Reads the doclens of every chunk; their sum must match `num_embeddings` when it is given. */
async function readPassageLayout(dir: string, meta: IndexMetadata): Promise<PassageLayout> {
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
  return { perChunk, doclens, docOffsets, numEmbeddings };
}

/** What the chunks are checked against, from the parts read before them. */
interface ChunkExpectations {
  codec: ResidualCodec;
  dim: number;
  numCentroids: number;
  onChunk: OpenOptions['onChunk'];
}

/** Reads every chunk's codes and residuals into one array each, checking shapes and codes. */
async function readChunks(
  files: IndexFiles,
  meta: IndexMetadata,
  passages: PassageLayout,
  expect: ChunkExpectations,
): Promise<{ codes: Int32Array; residuals: Uint8Array }> {
  const { codec, dim, numCentroids } = expect;
  const codes = new Int32Array(passages.numEmbeddings);
  const residuals = new Uint8Array(passages.numEmbeddings * codec.packedDim);
  let at = 0;
  for (let c = 0; c < meta.numChunks; c++) {
    const chunk = await files.chunk(c);
    const rows = passages.perChunk[c]!.reduce((a, b) => a + b, 0);
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
    checkCodes(chunkCodes, rows, numCentroids, codesFile);
    // One copy into the index's array; the chunk's file buffer is released afterwards, so
    // the index never needs to fit in memory twice.
    codes.set(chunkCodes, at);
    residuals.set(toUint8(chunk.residuals, residualsFile), at * codec.packedDim);
    at += rows;
    expect.onChunk?.(c + 1, meta.numChunks);
  }
  return { codes, residuals };
}

/** Throws unless each of the first `rows` codes names a centroid. */
function checkCodes(codes: Int32Array, rows: number, numCentroids: number, file: string): void {
  for (let i = 0; i < rows; i++) {
    const code = codes[i]!;
    if (code < 0 || code >= numCentroids)
      throw new FormatError(
        file,
        `code ${code} at row ${i} is not a centroid (0..${numCentroids - 1})`,
      );
  }
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
