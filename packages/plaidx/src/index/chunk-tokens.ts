/**
 * Opening the chunks of a PLAID index: where their codes and residuals lie (from the files'
 * heads), then either every chunk read into memory (checked for shapes and codes) or the files
 * served through a page cache.
 */
import { stat } from 'node:fs/promises';
import { FormatError } from '@irserve/dense';
import { MAX_BYTE_VIEW, PageCache, DEFAULT_PAGE_SIZE } from 'irserve/plugin';
import { expectShape, toInt32, toUint8 } from '../formats/tensor.js';
import type { ResidualCodec } from './codec.js';
import type { IndexFiles } from './index-files.js';
import { PagedTokens, type ChunkPlaces, type PageCrcs } from './paged-tokens.js';
import { MemoryTokens, type ChunkLayout, type PassageTokens } from './passage-tokens.js';
import { npyPlace, torchPlace } from '../formats/tensor-place.js';

/** What the chunks are checked against, from the parts read before them. */
export interface ChunkExpectations {
  codec: ResidualCodec;
  numCentroids: number;
  /** Tokens of each chunk (from its doclens file). */
  rows: number[];
  onChunk: ((done: number, total: number) => void) | undefined;
}

/** The size of each chunk file; a missing one is an error naming it. */
export async function chunkSizes(files: IndexFiles, chunks: number): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  for (let c = 0; c < chunks; c++) {
    const [codesFile, residualsFile] = files.chunkFiles(c);
    for (const [file, what] of [
      [codesFile, 'codes'],
      [residualsFile, 'residuals'],
    ] as const) {
      const size = await stat(file).then(
        (s) => s.size,
        () => -1,
      );
      if (size < 0) throw new FormatError(file, `missing the ${what} of chunk ${c}`);
      sizes.set(file, size);
    }
  }
  return sizes;
}

/** Where each chunk's tensors are (from the files' heads), with their shapes and types checked. */
export function placeChunks(files: IndexFiles, expect: ChunkExpectations): ChunkPlaces[] {
  const place = files.layout === 'npy' ? npyPlace : torchPlace;
  return expect.rows.map((_, c) => {
    const [codesFile, residualsFile] = files.chunkFiles(c);
    const chunk = { codes: place(codesFile), residuals: place(residualsFile) };
    checkShapes([chunk.codes, chunk.residuals], [codesFile, residualsFile], c, expect);
    if (!['int32', 'int64'].includes(chunk.codes.dtype))
      throw new FormatError(codesFile, `expected int32 or int64 codes, got ${chunk.codes.dtype}`);
    if (chunk.residuals.dtype !== 'uint8')
      throw new FormatError(residualsFile, `expected a uint8 tensor, got ${chunk.residuals.dtype}`);
    return chunk;
  });
}

type Shaped = { readonly shape: readonly number[] };

function checkShapes(
  [codes, residuals]: [Shaped, Shaped],
  [codesFile, residualsFile]: readonly [string, string],
  c: number,
  expect: ChunkExpectations,
): void {
  const rows = expect.rows[c]!;
  expectShape(codes, [rows], codesFile, `codes of chunk ${c} (doclens.${c}.json sums to ${rows})`);
  expectShape(
    residuals,
    [rows, expect.codec.packedDim],
    residualsFile,
    `residuals of chunk ${c} (dim ${expect.codec.dim}, nbits ${expect.codec.nbits})`,
  );
}

/** Whether any chunk file is past what one byte array holds (it must be served from its file). */
export function needsPaging(sizes: Map<string, number>): boolean {
  return [...sizes.values()].some((bytes) => bytes > MAX_BYTE_VIEW);
}

/** Bytes the chunks take in memory: int32 codes and the packed residuals. */
export function inMemoryBytes(expect: ChunkExpectations): number {
  const tokens = expect.rows.reduce((a, b) => a + b, 0);
  return tokens * (4 + expect.codec.packedDim);
}

/** Reads every chunk into memory, checking shapes and codes. */
export async function readChunkTokens(
  files: IndexFiles,
  layout: ChunkLayout,
  expect: ChunkExpectations,
): Promise<PassageTokens> {
  const codes: Int32Array[] = [];
  const residuals: Uint8Array[] = [];
  for (let c = 0; c < expect.rows.length; c++) {
    const chunk = await files.chunk(c);
    const [codesFile, residualsFile] = chunk.files;
    checkShapes([chunk.codes, chunk.residuals], chunk.files, c, expect);
    const chunkCodes = toInt32(chunk.codes, codesFile);
    checkCodes(chunkCodes, expect.numCentroids, codesFile);
    codes.push(chunkCodes);
    residuals.push(toUint8(chunk.residuals, residualsFile));
    expect.onChunk?.(c + 1, expect.rows.length);
  }
  return new MemoryTokens(layout, codes, residuals, expect.codec.packedDim);
}

/** Throws unless each code names a centroid. */
function checkCodes(codes: Int32Array, numCentroids: number, file: string): void {
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code < 0 || code >= numCentroids)
      throw new FormatError(
        file,
        `code ${code} at row ${i} is not a centroid (0..${numCentroids - 1})`,
      );
  }
}

/** Serves the chunks from their files through a page cache of `cacheBytes`. */
export function pagedChunkTokens(
  layout: ChunkLayout,
  placed: { places: ChunkPlaces[]; sizes: Map<string, number> },
  expect: ChunkExpectations,
  options: { cacheBytes: number; pageCrcs: PageCrcs | undefined; pageSize: number | undefined },
): PassageTokens {
  const cache = new PageCache({
    budgetBytes: options.cacheBytes,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
  });
  return new PagedTokens({
    layout,
    chunks: placed.places,
    sizes: placed.sizes,
    cache,
    pageCrcs: options.pageCrcs ?? (() => undefined),
    packedDim: expect.codec.packedDim,
    numCentroids: expect.numCentroids,
  });
}
