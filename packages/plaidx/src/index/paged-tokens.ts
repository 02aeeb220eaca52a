/**
 * Passages' codes and residuals read from the chunk files on demand, through irserve's page
 * cache (the one BM25 and learned sparse serve from): only the pages a search touches are
 * read, each checked against its CRC-32 from `irserve-pages.arr` when the builder wrote one,
 * and the cache keeps the most recently used within its byte budget.
 */
import { openSync, closeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { ArrayFileError, PagedArray, type PageCache } from 'irserve/plugin';
import { passageSpan, type ChunkLayout, type PassageTokens } from './passage-tokens.js';
import type { TensorPlace } from '../formats/tensor-place.js';

/** One chunk's two tensors, where they are. */
export interface ChunkPlaces {
  codes: TensorPlace;
  residuals: TensorPlace;
}

/** The CRC-32 of each page of a file, or undefined when it has none (a ColBERT index). */
export type PageCrcs = (file: string) => Uint32Array | undefined;

/** One file as a paged array's source. */
class FilePages {
  readonly fd: number;
  readonly dataBytes: number;
  constructor(
    readonly path: string,
    bytes: number,
    readonly pageSize: number,
    readonly pageCrcs: Uint32Array,
    readonly checked: boolean,
  ) {
    this.fd = openSync(path, 'r');
    this.dataBytes = bytes;
  }

  checkPage(page: number, bytes: Uint8Array): void {
    if (!this.checked) return;
    // ArrayFile's message and fault, for a file that is not an array file.
    if (crc32(bytes) !== this.pageCrcs[page])
      throw new ArrayFileError(
        this.path,
        'damaged',
        `bytes ${page * this.pageSize}-${page * this.pageSize + bytes.length} do not match their checksum (a damaged file: rebuild the index or copy it again)`,
      );
  }

  close(): void {
    closeSync(this.fd);
  }
}

interface PagedChunk {
  codes: PagedArray<'i32'>;
  /** int64 codes are read as pairs of int32 (the low word is the code). */
  wide: boolean;
  residuals: PagedArray<'u8'>;
}

export interface PagedTokensOptions {
  layout: ChunkLayout;
  chunks: ChunkPlaces[];
  /** Bytes of each file. */
  sizes: Map<string, number>;
  cache: PageCache;
  pageCrcs: PageCrcs;
  packedDim: number;
  numCentroids: number;
}

/** Codes and residuals served from the files. */
export class PagedTokens implements PassageTokens {
  readonly storage = 'paged';
  readonly #layout: ChunkLayout;
  readonly #chunks: PagedChunk[];
  readonly #files: FilePages[] = [];
  readonly #cache: PageCache;
  readonly #packedDim: number;
  readonly #numCentroids: number;
  #codes = new Int32Array(256);
  #wide = new Int32Array(512);
  #residuals = new Uint8Array(8192);

  constructor(options: PagedTokensOptions) {
    this.#layout = options.layout;
    this.#cache = options.cache;
    this.#packedDim = options.packedDim;
    this.#numCentroids = options.numCentroids;
    try {
      this.#chunks = options.chunks.map((chunk) => ({
        codes: this.#paged(chunk.codes, 'i32', options) as PagedArray<'i32'>,
        wide: chunk.codes.dtype === 'int64',
        residuals: this.#paged(chunk.residuals, 'u8', options) as PagedArray<'u8'>,
      }));
    } catch (error) {
      for (const file of this.#files) file.close();
      throw error;
    }
  }

  codes(pid: number): Int32Array {
    const [chunk, start, end] = passageSpan(this.#layout, pid);
    const n = end - start;
    if (this.#codes.length < n) this.#codes = new Int32Array(2 * n);
    const out = this.#codes.subarray(0, n);
    const source = this.#chunks[chunk]!;
    if (!source.wide) source.codes.read(start, end, out);
    else {
      if (this.#wide.length < 2 * n) this.#wide = new Int32Array(4 * n);
      const halves = source.codes.read(2 * start, 2 * end, this.#wide);
      for (let i = 0; i < n; i++) out[i] = halves[2 * i + 1] === 0 ? halves[2 * i]! : -1;
    }
    for (let i = 0; i < n; i++)
      if (out[i]! < 0 || out[i]! >= this.#numCentroids)
        throw new ArrayFileError(
          this.#fileOf(chunk),
          'damaged',
          `token ${start + i} has no centroid ${out[i]} (0..${this.#numCentroids - 1}): a damaged file`,
        );
    return out;
  }

  residuals(pid: number): Uint8Array {
    const [chunk, start, end] = passageSpan(this.#layout, pid);
    const bytes = (end - start) * this.#packedDim;
    if (this.#residuals.length < bytes) this.#residuals = new Uint8Array(2 * bytes);
    const out = this.#residuals.subarray(0, bytes);
    this.#chunks[chunk]!.residuals.read(start * this.#packedDim, end * this.#packedDim, out);
    return out;
  }

  residentBytes(): number {
    return this.#cache.stats().residentBytes;
  }

  close(): Promise<void> {
    for (const chunk of this.#chunks) {
      chunk.codes.close();
      chunk.residuals.close();
    }
    for (const file of this.#files) file.close();
    return Promise.resolve();
  }

  #fileOf(chunk: number): string {
    return this.#files[2 * chunk]!.path;
  }

  #paged(place: TensorPlace, type: 'i32' | 'u8', options: PagedTokensOptions): PagedArray {
    const crcs = options.pageCrcs(place.file);
    const file = new FilePages(
      place.file,
      options.sizes.get(place.file)!,
      options.cache.pageSize,
      crcs ?? new Uint32Array(0),
      crcs !== undefined,
    );
    this.#files.push(file);
    const elements = type === 'u8' ? place.length : place.length / 4;
    return new PagedArray(
      file,
      { name: place.file, type, offset: place.offset, length: elements },
      options.cache,
    );
  }
}
