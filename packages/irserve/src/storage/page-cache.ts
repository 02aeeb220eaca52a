/**
 * A byte-bounded cache of file pages shared by the paged arrays of a service (or of several):
 * the pages a search reads stay in memory up to the budget, the least recently used are
 * replaced first (the CLOCK approximation: one "referenced" bit per page, a hand that sweeps).
 * Pages live in slots of a few large slabs allocated as the cache fills, so a full cache costs
 * no garbage collection and its memory is exactly what `residentBytes` reports.
 */

/** Pages per slab (a slab is allocated when the cache first needs one of its slots). */
const SLAB_PAGES = 1024;
/** Below this many pages a cache cannot hold the pages one read spans. */
export const MIN_CACHE_PAGES = 16;

export interface PageCacheStats {
  /** Bytes of pages held. */
  residentBytes: number;
  /** The most bytes it may hold. */
  capacityBytes: number;
  hits: number;
  misses: number;
  /** Bytes read from files. */
  bytesRead: number;
}

/**
 * @example
 * const cache = new PageCache({ budgetBytes: 512 << 20, pageSize: 16384 });
 * const postings = file.paged('postingDocs', cache);
 */
export class PageCache {
  readonly pageSize: number;
  readonly capacityPages: number;
  readonly #slabs: Uint8Array[] = [];
  /** Key of the page in each slot (-1: empty). */
  readonly #keys: Float64Array;
  readonly #referenced: Uint8Array;
  readonly #slotOf = new Map<number, number>();
  #used = 0;
  #hand = 0;
  #nextFile = 0;
  #hits = 0;
  #misses = 0;
  #bytesRead = 0;

  constructor({ budgetBytes, pageSize }: { budgetBytes: number; pageSize: number }) {
    this.pageSize = pageSize;
    this.capacityPages = Math.max(MIN_CACHE_PAGES, Math.floor(budgetBytes / pageSize));
    this.#keys = new Float64Array(this.capacityPages).fill(-1);
    this.#referenced = new Uint8Array(this.capacityPages);
  }

  /** A number for a file's pages in this cache (`key` combines it with a page number). */
  registerFile(): number {
    return this.#nextFile++;
  }

  /** The cache key of page `page` of file `file`. */
  key(file: number, page: number): number {
    return file * 2 ** 32 + page;
  }

  /** The bytes of a cached page (marked as used), or undefined. Valid until the next `insert`. */
  lookup(key: number): Uint8Array | undefined {
    const slot = this.#slotOf.get(key);
    if (slot === undefined) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#referenced[slot] = 1;
    return this.#slot(slot);
  }

  /** Whether a page is cached (without marking it used or counting a hit or miss). */
  has(key: number): boolean {
    return this.#slotOf.has(key);
  }

  /**
   * Stores a page (`bytes`, at most a page; the caller has checked it) and returns its copy in
   * the cache, valid until the next `insert`.
   */
  insert(key: number, bytes: Uint8Array): Uint8Array {
    this.#bytesRead += bytes.length;
    const slot = this.#freeSlot();
    this.#keys[slot] = key;
    this.#referenced[slot] = 1;
    this.#slotOf.set(key, slot);
    const view = this.#slot(slot).subarray(0, bytes.length);
    view.set(bytes);
    return view;
  }

  /** Drops every page of `file` (its file was closed). */
  forgetFile(file: number): void {
    for (const [key, slot] of this.#slotOf)
      if (Math.floor(key / 2 ** 32) === file) {
        this.#slotOf.delete(key);
        this.#keys[slot] = -1;
        this.#referenced[slot] = 0;
      }
  }

  stats(): PageCacheStats {
    return {
      residentBytes: this.#slotOf.size * this.pageSize,
      capacityBytes: this.capacityPages * this.pageSize,
      hits: this.#hits,
      misses: this.#misses,
      bytesRead: this.#bytesRead,
    };
  }

  #slot(slot: number): Uint8Array {
    const slab = this.#slabs[Math.floor(slot / SLAB_PAGES)]!;
    const at = (slot % SLAB_PAGES) * this.pageSize;
    return slab.subarray(at, at + this.pageSize);
  }

  /** An empty slot: a never-used one while there are any, then the CLOCK's victim. */
  #freeSlot(): number {
    if (this.#used < this.capacityPages) {
      const slot = this.#used++;
      const slab = Math.floor(slot / SLAB_PAGES);
      if (slab === this.#slabs.length) {
        const pages = Math.min(SLAB_PAGES, this.capacityPages - slab * SLAB_PAGES);
        this.#slabs.push(new Uint8Array(pages * this.pageSize));
      }
      return slot;
    }
    for (;;) {
      const slot = this.#hand;
      this.#hand = (this.#hand + 1) % this.capacityPages;
      if (this.#keys[slot] === -1) return slot;
      if (this.#referenced[slot] === 1) {
        this.#referenced[slot] = 0;
        continue;
      }
      this.#slotOf.delete(this.#keys[slot]!);
      this.#keys[slot] = -1;
      return slot;
    }
  }
}
