/**
 * One section of an array file read on demand: a range of elements is copied out of cached
 * pages, and pages not in the cache are read from the file (a run of them in one positioned
 * read) and checked against their CRC-32 before anything uses them. Reads are synchronous, so
 * a search keeps its simple loops; a page in the operating system's page cache costs a few
 * microseconds to fetch, and one already in this cache a copy.
 */
import { readSync } from 'node:fs';
import { ArrayFileError, type SectionEntry } from './array-file-format.js';
import { CONSTRUCTORS, type ArrayOf, type ElementType } from './element-types.js';
import type { PageCache } from './page-cache.js';

/** What a paged array needs of its file. */
export interface PagedSource {
  path: string;
  fd: number;
  pageSize: number;
  dataBytes: number;
  pageCrcs: Uint32Array;
  checkPage(page: number, bytes: Uint8Array): void;
}

/** Pages read from the file in one call at most (a run of misses). */
const RUN_PAGES = 64;

/**
 * @example
 * const docs = file.paged('postingDocs', cache);
 * const list = docs.read(start, end); // Int32Array of end - start elements
 */
export class PagedArray<K extends ElementType = ElementType> {
  readonly name: string;
  readonly type: K;
  readonly length: number;
  readonly #source: PagedSource;
  readonly #cache: PageCache;
  readonly #file: number;
  readonly #offset: number;
  readonly #bytesPerElement: number;
  /** Where a run of missed pages is read (reused). */
  #run: Uint8Array | undefined;
  /** The target of `at` (reused). */
  #oneElement: ArrayOf[K] | undefined;
  #closed = false;

  constructor(source: PagedSource, section: SectionEntry & { type: K }, cache: PageCache) {
    if (cache.pageSize !== source.pageSize)
      throw new ArrayFileError(
        source.path,
        'misuse',
        `pages of ${source.pageSize} bytes cannot share a cache of ${cache.pageSize}-byte pages`,
      );
    this.name = section.name;
    this.type = section.type;
    this.length = section.length;
    this.#source = source;
    this.#cache = cache;
    this.#file = cache.registerFile();
    this.#offset = section.offset;
    this.#bytesPerElement = CONSTRUCTORS[section.type].BYTES_PER_ELEMENT;
  }

  /**
   * Elements [start, end) copied into `into` from its first element (a new array of exactly
   * that length when `into` is not given); returns the array written.
   */
  read(start: number, end: number, into?: ArrayOf[K]): ArrayOf[K] {
    if (!(start >= 0 && end <= this.length && start <= end))
      throw new RangeError(`${this.name}: range [${start}, ${end}) outside [0, ${this.length})`);
    const out = into ?? new CONSTRUCTORS[this.type](end - start);
    if (out.length < end - start) throw new RangeError(`${this.name}: the target is too short`);
    const bytes = new Uint8Array(out.buffer, out.byteOffset, (end - start) * this.#bytesPerElement);
    this.#copy(this.#offset + start * this.#bytesPerElement, bytes);
    return out;
  }

  /** Element `i`. */
  at(i: number): number {
    return this.read(i, i + 1, this.#one())[0]!;
  }

  /** Stops reads (they throw) and drops this array's pages from the cache. */
  close(): void {
    this.#closed = true;
    this.#cache.forgetFile(this.#file);
  }

  #one(): ArrayOf[K] {
    return (this.#oneElement ??= new CONSTRUCTORS[this.type](1));
  }

  /** Copies the file's bytes from `position` into `into`, page by page. */
  #copy(position: number, into: Uint8Array): void {
    if (this.#closed)
      throw new ArrayFileError(this.#source.path, 'misuse', `${this.name} was closed`);
    const size = this.#source.pageSize;
    let done = 0;
    while (done < into.length) {
      const at = position + done;
      const page = Math.floor(at / size);
      const bytes = this.#page(page, Math.ceil((position + into.length) / size) - page);
      const from = at - page * size;
      const n = Math.min(into.length - done, bytes.length - from);
      into.set(bytes.subarray(from, from + n), done);
      done += n;
    }
  }

  /**
   * Page `page` from the cache, or read from the file with up to `ahead - 1` following pages
   * that are also missing (checked and cached too).
   */
  #page(page: number, ahead: number): Uint8Array {
    const cache = this.#cache;
    const cached = cache.lookup(cache.key(this.#file, page));
    if (cached !== undefined) return cached;
    const size = this.#source.pageSize;
    let pages = 1;
    const most = Math.min(ahead, RUN_PAGES);
    while (pages < most && !cache.has(cache.key(this.#file, page + pages))) pages++;
    const first = page * size;
    const bytes = Math.min(pages * size, this.#source.dataBytes - first);
    const run = (this.#run ??= new Uint8Array(RUN_PAGES * size)).subarray(0, bytes);
    readFully(this.#source, run, first);
    // Pages after the first are cached before it, so the first (which the caller copies from
    // next) is the last inserted and cannot have been replaced.
    for (let p = pages - 1; p >= 0; p--) {
      const pageBytes = run.subarray(p * size, Math.min(bytes, (p + 1) * size));
      this.#source.checkPage(page + p, pageBytes);
      if (p > 0) cache.insert(cache.key(this.#file, page + p), pageBytes);
    }
    return cache.insert(cache.key(this.#file, page), run.subarray(0, Math.min(bytes, size)));
  }
}

function readFully(source: PagedSource, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(source.fd, into, done, into.length - done, position + done);
    if (n === 0)
      throw new ArrayFileError(
        source.path,
        'damaged',
        `ends before byte ${position + into.length} (truncated)`,
      );
    done += n;
  }
}
