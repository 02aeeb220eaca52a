/**
 * A PLAID index opened for search: centroids, the residual codec, the IVF (centroid ->
 * passages) and the passages' token codes and packed residuals, chunk by chunk, in memory or
 * served from the files through a page cache (when `memoryBudget` is less than the index
 * needs, or a chunk file passes 4 GiB). Files written by ColBERT carry no checksums, so each
 * part is checked for the sizes and shapes the others imply, and every mismatch names its file.
 */
import { join } from 'node:path';
import { FormatError } from '@irserve/dense';
import { formatBytes } from 'irserve/plugin';
import { expectShape, toFloat32 } from '../formats/tensor.js';
import {
  chunkSizes,
  inMemoryBytes,
  needsPaging,
  pagedChunkTokens,
  placeChunks,
  readChunkTokens,
  type ChunkExpectations,
} from './chunk-tokens.js';
import { makeCodec, type ResidualCodec } from './codec.js';
import { indexFiles, type IndexFiles, type Layout } from './index-files.js';
import { pidLists } from './ivf.js';
import { verifyManifest } from './manifest.js';
import { readDoclens, readIndexMetadata, type IndexMetadata } from './metadata.js';
import type { ChunkLayout, PassageTokens } from './passage-tokens.js';

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
  readonly ivfOffsets: Float64Array;
  readonly ivfPids: Int32Array;
  readonly doclens: Int32Array;
  /** First embedding of passage p (length numPassages + 1). */
  readonly docOffsets: Float64Array;
  /** Each passage's token codes and residuals. */
  readonly tokens: PassageTokens;
  /** Bytes held in memory: the heads (centroids, IVF, doclens) and the resident tokens. */
  residentBytes(): number;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Called after each chunk is read. */
  onChunk?: (done: number, total: number) => void;
  /** Check the sha256 of every file against `irserve-manifest.json`, when present (default true). */
  verifyChecksums?: boolean;
  /**
   * Most bytes the index may hold in memory: past it the chunks are served from their files,
   * the heads in memory and the rest of the budget a page cache (default: no limit).
   */
  memoryBudget?: number;
  /** `paged` serves the chunks from their files whatever their size (tests, benchmarks). */
  storage?: 'auto' | 'paged';
}

/** The page cache of an index served from its files only because a file passes 4 GiB. */
const DEFAULT_CACHE_BYTES = 1 << 30;
/** The least page cache an index served from its files gets (16 pages). */
const MIN_CACHE_BYTES = 256 << 10;

/**
 * Opens a PLAID index directory in either layout.
 *
 * @example const index = await openPlaidIndex('indexes/msmarco.nbits=2'); index.numPassages
 */
export async function openPlaidIndex(dir: string, options: OpenOptions = {}): Promise<PlaidIndex> {
  const files = await indexFiles(dir);
  // Sizes first (a truncated file is named as the manifest sees it), hashes once it is known
  // which files are read whole.
  await verifyManifest(dir, { hash: false });
  const meta = await readIndexMetadata(dir);
  const { centroids, numCentroids, dim } = await readCentroids(files, meta.nbits);
  const codec = await readCodec(files, meta.nbits, dim);
  const passages = await readPassageLayout(dir, meta);
  const expect: ChunkExpectations = {
    codec,
    numCentroids,
    rows: passages.perChunk.map((lengths) => lengths.reduce((a, b) => a + b, 0)),
    onChunk: options.onChunk,
  };
  const sizes = await chunkSizes(files, meta.numChunks);
  const ivf = pidLists(await files.ivf(), numCentroids, passages.docOffsets);
  const heads =
    centroids.byteLength * 1.25 +
    ivf.pids.byteLength +
    ivf.offsets.byteLength +
    passages.doclens.byteLength * 3;
  const budget = options.memoryBudget;
  const paged =
    options.storage === 'paged' ||
    needsPaging(sizes) ||
    (budget !== undefined && heads + inMemoryBytes(expect) > budget);
  const verified = await verifyManifest(dir, { hash: options.verifyChecksums ?? true, paged });
  const tokens = paged
    ? pagedChunkTokens(passages, { places: placeChunks(files, expect), sizes }, expect, {
        cacheBytes: cacheBytes(budget, heads, dir),
        pageCrcs: verified?.pageCrcs,
        pageSize: verified?.pageSize,
      })
    : await readChunkTokens(files, passages, expect);
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
    ivfOffsets: ivf.offsets,
    ivfPids: ivf.pids,
    doclens: passages.doclens,
    docOffsets: passages.docOffsets,
    tokens,
    residentBytes: () => heads + tokens.residentBytes(),
    close: () => tokens.close(),
  };
}

/** The page cache's share of the budget: what the heads leave (at least 16 pages). */
function cacheBytes(budget: number | undefined, heads: number, dir: string): number {
  if (budget === undefined) return DEFAULT_CACHE_BYTES;
  if (budget < heads)
    throw new RangeError(
      `config.memory_budget: ${formatBytes(budget)} is less than the index at ${dir} needs in memory however it is served (${formatBytes(heads)}: its centroids, IVF and passage lengths); raise it`,
    );
  return Math.max(MIN_CACHE_BYTES, budget - heads);
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
interface PassageLayout extends ChunkLayout {
  /** The doclens of each chunk, as read (chunk c holds `perChunk[c].length` passages). */
  perChunk: number[][];
  doclens: Int32Array;
  numEmbeddings: number;
}

/** Reads the doclens of every chunk; their sum must match `num_embeddings` when it is given. */
async function readPassageLayout(dir: string, meta: IndexMetadata): Promise<PassageLayout> {
  const perChunk: number[][] = [];
  for (let c = 0; c < meta.numChunks; c++) perChunk.push(await readDoclens(dir, c));
  const passages = perChunk.reduce((n, lengths) => n + lengths.length, 0);
  const doclens = new Int32Array(passages);
  const docOffsets = new Float64Array(passages + 1);
  const firstPassage = new Int32Array(meta.numChunks + 1);
  const firstEmbedding = new Float64Array(meta.numChunks + 1);
  let p = 0;
  perChunk.forEach((lengths, c) => {
    for (const length of lengths) {
      doclens[p] = length;
      docOffsets[p + 1] = docOffsets[p]! + length;
      p++;
    }
    firstPassage[c + 1] = p;
    firstEmbedding[c + 1] = docOffsets[p]!;
  });
  const numEmbeddings = docOffsets[passages]!;
  if (meta.numEmbeddings !== undefined && meta.numEmbeddings !== numEmbeddings)
    throw new FormatError(
      join(dir, 'metadata.json'),
      `num_embeddings is ${meta.numEmbeddings} but the doclens files sum to ${numEmbeddings}`,
    );
  return { perChunk, doclens, docOffsets, firstPassage, firstEmbedding, numEmbeddings };
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
