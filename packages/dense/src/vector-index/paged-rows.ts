/**
 * Rows read from their file on demand, for an index larger than the memory it may use: the
 * file is read in blocks of whole rows (about 64 KiB), the blocks a search reads kept in a
 * byte-bounded page cache (least recently used replaced first), the operating system's page
 * cache doing the rest. Positions are plain numbers, so a file may pass 4 GiB.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { PageCache } from 'irserve/plugin';
import type { RowStore, RowVisitor } from './row-store.js';

/** Bytes of a block read at once (rounded down to whole rows, at least one row). */
const BLOCK_BYTES = 64 * 1024;

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

  /** Rows of `path` (`count` rows of `rowBytes`), at most `budgetBytes` of them in memory. */
  constructor(path: string, count: number, rowBytes: number, budgetBytes: number) {
    this.count = count;
    this.rowBytes = rowBytes;
    this.#path = path;
    this.#rowsPerBlock = Math.max(1, Math.floor(BLOCK_BYTES / rowBytes));
    const blockBytes = this.#rowsPerBlock * rowBytes;
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
    return this.#cache.insert(key, into);
  }
}
