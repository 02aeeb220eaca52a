/**
 * Rows read from their file on demand, for an index larger than the memory it may use: the
 * file is read in blocks of whole rows (about 64 KiB), the blocks a search reads kept in a
 * byte-bounded page cache (least recently used replaced first), the operating system's page
 * cache doing the rest. With page checksums, a block is a checksummed page, checked when it
 * is read from the file: a damaged page fails the search, naming the file and the bytes.
 * Positions are plain numbers, so a file may pass 4 GiB.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { PageCache } from 'irserve/plugin';
import { pageBytesFor, pageMatches } from './page-checksums.js';
import type { RowStore, RowVisitor } from './row-store.js';

/** A rows file's page checksums: the CRC-32 of each page of `pageBytes` (whole rows). */
export interface PageChecks {
  pageBytes: number;
  crcs: Uint32Array;
}

export class PagedRows implements RowStore {
  readonly count: number;
  readonly rowBytes: number;
  readonly #path: string;
  readonly #fd: number;
  readonly #cache: PageCache;
  readonly #file: number;
  readonly #rowsPerBlock: number;
  /** Where a missed block is read before the cache copies it (reused). */
  readonly #read: Uint8Array;
  readonly #crcs: Uint32Array | undefined;

  /**
   * Rows of `path` (`count` rows of `rowBytes`), at most `budgetBytes` of them in memory;
   * each block read is checked against `checks` when given.
   */
  constructor(
    path: string,
    count: number,
    rowBytes: number,
    budgetBytes: number,
    checks?: PageChecks,
  ) {
    this.count = count;
    this.rowBytes = rowBytes;
    this.#path = path;
    const blockBytes = checks?.pageBytes ?? pageBytesFor(rowBytes);
    this.#rowsPerBlock = blockBytes / rowBytes;
    this.#crcs = checks?.crcs;
    this.#cache = new PageCache({ budgetBytes, pageSize: blockBytes });
    this.#file = this.#cache.registerFile();
    this.#read = new Uint8Array(blockBytes);
    this.#fd = openSync(path, 'r');
  }

  get residentBytes(): number {
    return this.#cache.stats().residentBytes;
  }

  scan(first: number, count: number, visit: RowVisitor): void {
    const per = this.#rowsPerBlock;
    const end = first + count;
    for (let row = first; row < end;) {
      const block = Math.floor(row / per);
      const inBlock = row - block * per;
      const rows = Math.min(end - row, per - inBlock);
      visit(this.#block(block), inBlock * this.rowBytes, row, rows);
      row += rows;
    }
  }

  row(index: number): Uint8Array {
    const block = Math.floor(index / this.#rowsPerBlock);
    const at = (index - block * this.#rowsPerBlock) * this.rowBytes;
    return this.#block(block).slice(at, at + this.rowBytes);
  }

  /** Closes the file (reads throw afterwards). */
  close(): void {
    this.#cache.forgetFile(this.#file);
    closeSync(this.#fd);
  }

  /** Block `block`, from the cache or read from the file (valid until the next block read). */
  #block(block: number): Uint8Array {
    const key = this.#cache.key(this.#file, block);
    const cached = this.#cache.lookup(key);
    if (cached) return cached;
    const first = block * this.#rowsPerBlock;
    const rows = Math.min(this.#rowsPerBlock, this.count - first);
    const into = this.#read.subarray(0, rows * this.rowBytes);
    const position = first * this.rowBytes;
    for (let done = 0; done < into.length;) {
      const n = readSync(this.#fd, into, done, into.length - done, position + done);
      if (n === 0)
        throw new Error(`${this.#path} ends before byte ${position + into.length} (truncated?)`);
      done += n;
    }
    const crc = this.#crcs?.[block];
    if (crc !== undefined && !pageMatches(into, crc))
      throw new Error(
        `${this.#path}: bytes ${position}-${position + into.length} do not match their page checksum (a damaged file: rebuild the index or copy it again)`,
      );
    return this.#cache.insert(key, into);
  }
}
