/**
 * A loaded index ready for queries: term lookup by binary search over the sorted term bytes,
 * document ids decoded on demand, BM25 parameters applied (norm table), and each term's
 * posting impacts and score bound computed on its first query (so k1 and b can change without
 * a rebuild, and a restart reads the file without a pass over every posting).
 */
import type { IndexData, IndexHeads } from './index-data.js';
import { PagedStore, ResidentStore, type PostingStore, type TermList } from './posting-store.js';
import { createScratch } from './search-scratch.js';
import { ScoringKernel } from './scoring-kernel.js';
import { idf, normInverseTable, type Bm25Params } from './scoring.js';
import { searchedExhaustively } from './exhaustive-threshold.js';
import type { PagedPostings } from './index-format.js';

const TERM_CACHE_LIMIT = 100_000;

export interface IndexOptions {
  /** `false` keeps every search in JavaScript (for tests and benchmarks). Default true. */
  wasm?: boolean;
}

/** An index whose posting lists are read from its file, and the bytes of lists it may keep. */
export interface PagedIndexData extends IndexHeads {
  paged: PagedPostings;
  listBudgetBytes: number;
}

export class Bm25Index {
  readonly data: IndexHeads;
  readonly params: Bm25Params;
  /** `1 / (k1 * (1 - b + b * dl / avgdl))` per norm byte. */
  readonly normInverse: Float64Array;
  readonly avgdl: number;
  /** Where the posting lists and their impacts come from (memory, or the file). */
  readonly postings: PostingStore;
  readonly #terms: Buffer;
  readonly #ids: Buffer;
  /** Term numbers and document ids looked up so far (bounded), so repeated queries skip the search. */
  readonly #termCache = new Map<string, number>();
  readonly #idCache: (string | undefined)[];
  /** Scratch space for searches (they run one at a time, synchronously). */
  readonly scratch = createScratch();
  /**
   * For a collection searched exhaustively (in memory), the WebAssembly memory its searches add
   * postings in (it also holds the impacts); undefined when searches run in JavaScript.
   */
  readonly kernel: ScoringKernel | undefined;

  /**
   * An index over `data`: all in memory, or (`PagedIndexData`) its lists read from its file.
   *
   * @example const index = new Bm25Index(builder.finish(), { k1: 0.9, b: 0.4 });
   */
  constructor(
    data: IndexData | PagedIndexData,
    params: Bm25Params,
    { wasm = true }: IndexOptions = {},
  ) {
    this.data = data;
    this.params = params;
    const { docCount, sumTotalTermFreq } = data.stats;
    this.avgdl = docCount > 0 ? sumTotalTermFreq / docCount : 0;
    this.normInverse = normInverseTable(params, this.avgdl);
    const { termBytes, idBytes } = data;
    this.#terms = Buffer.from(termBytes.buffer, termBytes.byteOffset, termBytes.byteLength);
    this.#ids = Buffer.from(idBytes.buffer, idBytes.byteOffset, idBytes.byteLength);
    const rule = { norms: data.norms, normInverse: this.normInverse };
    if ('paged' in data) {
      this.kernel = undefined;
      this.postings = new PagedStore(data, data.paged, rule, data.listBudgetBytes);
    } else {
      const small = wasm && searchedExhaustively(data.stats.numDocs);
      this.kernel = small ? ScoringKernel.over(data.postingDocs, data.stats.numDocs) : undefined;
      this.postings = new ResidentStore(data, data, rule, this.kernel?.impacts);
    }
    this.#idCache = new Array<string | undefined>(data.stats.numDocs);
  }

  get numDocs(): number {
    return this.data.stats.numDocs;
  }

  /** The term number of `term`, or -1 when no document has it. */
  termId(term: string): number {
    let id = this.#termCache.get(term);
    if (id === undefined) {
      id = this.#findTerm(term);
      if (this.#termCache.size >= TERM_CACHE_LIMIT) this.#termCache.clear();
      this.#termCache.set(term, id);
    }
    return id;
  }

  #findTerm(term: string): number {
    const target = Buffer.from(term, 'utf8');
    const offsets = this.data.termOffsets;
    let lo = 0;
    let hi = this.data.stats.numTerms - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = this.#terms.compare(target, 0, target.length, offsets[mid], offsets[mid + 1]);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The term with number `t` (for tooling and tests). */
  term(t: number): string {
    const offsets = this.data.termOffsets;
    return this.#terms.toString('utf8', offsets[t], offsets[t + 1]);
  }

  docFreq(t: number): number {
    return t < 0 ? 0 : this.data.postingStart[t + 1]! - this.data.postingStart[t]!;
  }

  /** Lucene's idf of term `t` (-1: a term no document has). */
  idf(t: number): number {
    return idf(this.docFreq(t), this.data.stats.docCount);
  }

  /** The id of document `d`. */
  docId(d: number): string {
    let id = this.#idCache[d];
    if (id === undefined) {
      id = this.#decodeId(d);
      this.#idCache[d] = id;
    }
    return id;
  }

  #decodeId(d: number): string {
    const offsets = this.data.idOffsets;
    return this.#ids.toString('utf8', offsets[d], offsets[d + 1]);
  }

  /** Every document id, in document order (for subset mappings; not cached). */
  docIds(): string[] {
    return Array.from({ length: this.numDocs }, (_, d) => this.#decodeId(d));
  }

  /** Term `t`'s documents and their impacts (read from the file first when paged). */
  list(t: number): TermList {
    return this.postings.list(t);
  }

  /**
   * Term `t`'s largest posting impact (its score bound is that times the query weight); fills
   * the term's impacts on first call.
   */
  maxImpact(t: number): number {
    return this.postings.maxImpact(t);
  }

  /** Bytes this index holds in memory: heads, lists and impacts, the kernel's memory. */
  residentBytes(): number {
    const { termBytes, termOffsets, postingStart, norms, idBytes, idOffsets } = this.data;
    const heads = [termBytes, termOffsets, postingStart, norms, idBytes, idOffsets];
    const kernel = this.kernel?.bytes ?? 0;
    return heads.reduce((sum, a) => sum + a.byteLength, 0) + kernel + this.postings.residentBytes();
  }
}
