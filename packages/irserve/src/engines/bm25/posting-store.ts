/**
 * Where a term's posting list comes from when a search asks for it, with each posting's impact
 * (`impact(tf, normInverse[norm])`, computed from the BM25 parameters on the term's first use):
 *
 * - `ResidentStore`: every list in memory (6 bytes a posting), impacts filled into one array as
 *   terms are queried (up to 4 more bytes a posting; the pages of terms never queried are never
 *   written, so the operating system never commits them).
 * - `PagedStore`: lists read from the index file on demand (its pages checked as they are read)
 *   and kept with their impacts, the least recently used first dropped, within a byte budget.
 */
import { PageCache } from '../../storage/index.js';
import type { IndexHeads, ResidentPostings } from './index-data.js';
import type { PagedPostings } from './index-format.js';
import { impact } from './scoring.js';

/** A term's documents (ascending) and their impacts, from position 0. */
export interface TermList {
  docs: Int32Array;
  impacts: Float32Array;
}

/** How impacts are computed: the documents' norm bytes and the norm table of the parameters. */
export interface ImpactRule {
  norms: Uint8Array;
  normInverse: Float64Array;
}

export interface PostingStore {
  readonly kind: 'memory' | 'paged';
  /** Term `t`'s list with its impacts filled. */
  list(t: number): TermList;
  /** Term `t`'s largest impact (0 for an empty list). */
  maxImpact(t: number): number;
  /** Bytes of posting data held now (lists and impacts). */
  residentBytes(): number;
  close(): void;
}

/** Writes the impacts of `docs`/`tfs` into `out`; returns the largest. */
function fillImpacts(
  docs: Int32Array,
  tfs: Uint16Array,
  rule: ImpactRule,
  out: Float32Array,
): number {
  const { norms, normInverse } = rule;
  let max = 0;
  for (let p = 0; p < docs.length; p++) {
    const x = impact(tfs[p]!, normInverse[norms[docs[p]!]!]!);
    out[p] = x;
    if (x > max) max = x;
  }
  return max;
}

export class ResidentStore implements PostingStore {
  readonly kind = 'memory';
  readonly postings: ResidentPostings;
  /** Per posting, its impact; a term's are written by its first `list` or `maxImpact`. */
  readonly impacts: Float32Array;
  readonly #start: Uint32Array;
  readonly #rule: ImpactRule;
  /** Per term, its largest impact; NaN until filled. */
  readonly #max: Float32Array;
  /** Postings whose impacts were filled in this store's own array (0 with a kernel's). */
  #filledPostings = 0;
  readonly #ownImpacts: boolean;

  /** `impacts`: where to keep them (a kernel's memory, counted there), else a new array. */
  constructor(
    heads: IndexHeads,
    postings: ResidentPostings,
    rule: ImpactRule,
    impacts?: Float32Array,
  ) {
    this.postings = postings;
    this.#start = heads.postingStart;
    this.#rule = rule;
    this.#ownImpacts = impacts === undefined;
    this.impacts = impacts ?? new Float32Array(postings.postingDocs.length);
    this.#max = new Float32Array(heads.stats.numTerms).fill(Number.NaN);
  }

  list(t: number): TermList {
    this.maxImpact(t);
    const start = this.#start[t]!;
    const end = this.#start[t + 1]!;
    return {
      docs: this.postings.postingDocs.subarray(start, end),
      impacts: this.impacts.subarray(start, end),
    };
  }

  maxImpact(t: number): number {
    let max = this.#max[t]!;
    if (Number.isNaN(max)) {
      const start = this.#start[t]!;
      const end = this.#start[t + 1]!;
      const { postingDocs, postingTfs } = this.postings;
      max = fillImpacts(
        postingDocs.subarray(start, end),
        postingTfs.subarray(start, end),
        this.#rule,
        this.impacts.subarray(start, end),
      );
      this.#max[t] = max;
      if (this.#ownImpacts) this.#filledPostings += end - start;
    }
    return max;
  }

  residentBytes(): number {
    const { postingDocs, postingTfs } = this.postings;
    return postingDocs.byteLength + postingTfs.byteLength + this.#filledPostings * 4;
  }

  close(): void {}
}

/** Bytes a list of `n` postings takes in the paged store's cache. */
const LIST_BYTES_PER_POSTING = 8;
/** The page cache a paged store reads through: lists are cached whole, so it needs little. */
const READ_CACHE_BYTES = 8 << 20;

export class PagedStore implements PostingStore {
  readonly kind = 'paged';
  readonly #paged: PagedPostings;
  readonly #start: Uint32Array;
  readonly #rule: ImpactRule;
  readonly #max: Float32Array;
  readonly #budget: number;
  /** Term -> list, least recently used first. */
  readonly #lists = new Map<number, TermList>();
  #bytes = 0;
  #tfs = new Uint16Array(1024);

  /** Lists of up to `budgetBytes` (8 bytes a posting) are kept between searches. */
  constructor(heads: IndexHeads, paged: PagedPostings, rule: ImpactRule, budgetBytes: number) {
    this.#paged = paged;
    this.#start = heads.postingStart;
    this.#rule = rule;
    this.#max = new Float32Array(heads.stats.numTerms).fill(Number.NaN);
    this.#budget = budgetBytes;
  }

  /** The page cache for a paged store's files (small: the store caches whole lists). */
  static readCache(pageSize: number): PageCache {
    return new PageCache({ budgetBytes: READ_CACHE_BYTES, pageSize });
  }

  list(t: number): TermList {
    const cached = this.#lists.get(t);
    if (cached !== undefined) {
      this.#lists.delete(t); // to the most recently used end
      this.#lists.set(t, cached);
      return cached;
    }
    const start = this.#start[t]!;
    const end = this.#start[t + 1]!;
    const n = end - start;
    if (this.#tfs.length < n) this.#tfs = new Uint16Array(Math.max(n, this.#tfs.length * 2));
    const docs = this.#paged.docs.read(start, end);
    const tfs = this.#paged.tfs.read(start, end, this.#tfs).subarray(0, n);
    const impacts = new Float32Array(n);
    this.#max[t] = fillImpacts(docs, tfs, this.#rule, impacts);
    const list = { docs, impacts };
    this.#keep(t, list);
    return list;
  }

  maxImpact(t: number): number {
    const max = this.#max[t]!;
    return Number.isNaN(max) ? this.#maxOfList(t) : max;
  }

  #maxOfList(t: number): number {
    this.list(t);
    return this.#max[t]!;
  }

  residentBytes(): number {
    return this.#bytes + this.#paged.cache.stats().residentBytes;
  }

  close(): void {
    this.#lists.clear();
    this.#bytes = 0;
    this.#paged.docs.close();
    this.#paged.tfs.close();
  }

  #keep(t: number, list: TermList): void {
    this.#lists.set(t, list);
    this.#bytes += list.docs.length * LIST_BYTES_PER_POSTING;
    for (const [term, old] of this.#lists) {
      if (this.#bytes <= this.#budget || term === t) break;
      this.#lists.delete(term);
      this.#bytes -= old.docs.length * LIST_BYTES_PER_POSTING;
    }
  }
}
