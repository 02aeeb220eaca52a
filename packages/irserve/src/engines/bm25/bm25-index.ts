/**
 * A loaded index ready for queries: term lookup by binary search over the sorted term bytes,
 * document ids decoded on demand, BM25 parameters applied (norm table), and each term's
 * posting impacts and score bound computed on its first query (so k1 and b can change without
 * a rebuild, and a restart reads the file without a pass over every posting).
 */
import type { IndexData } from './index-data.js';
import { searchedExhaustively } from './exhaustive-threshold.js';
import { createScratch } from './search-scratch.js';
import { ScoringKernel } from './scoring-kernel.js';
import { idf, impact, normInverseTable, type Bm25Params } from './scoring.js';

const TERM_CACHE_LIMIT = 100_000;

export class Bm25Index {
  readonly data: IndexData;
  readonly params: Bm25Params;
  /** `1 / (k1 * (1 - b + b * dl / avgdl))` per norm byte. */
  readonly normInverse: Float64Array;
  readonly avgdl: number;
  readonly #terms: Buffer;
  readonly #ids: Buffer;
  /**
   * Per posting, `impact(tf, normInverse[norm])`: a search multiplies it by the query weight
   * instead of dividing per posting. Filled one term at a time on first use; the pages of
   * terms never queried are never written, so the operating system never commits them.
   */
  readonly #impacts: Float32Array;
  /** Per term, its largest impact (its score bound per unit of weight); NaN until filled. */
  readonly #maxImpact: Float32Array;
  /** Term numbers and document ids looked up so far (bounded), so repeated queries skip the search. */
  readonly #termCache = new Map<string, number>();
  readonly #idCache: (string | undefined)[];
  /** Scratch space for searches (they run one at a time, synchronously). */
  readonly scratch = createScratch();
  /**
   * For a collection searched exhaustively, the WebAssembly memory its searches add postings
   * in (it also holds the impacts); undefined when searches run in JavaScript.
   */
  readonly kernel: ScoringKernel | undefined;

  /** `wasm: false` keeps every search in JavaScript (for tests and benchmarks). */
  constructor(data: IndexData, params: Bm25Params, { wasm = true }: { wasm?: boolean } = {}) {
    this.data = data;
    this.params = params;
    const { docCount, sumTotalTermFreq } = data.stats;
    this.avgdl = docCount > 0 ? sumTotalTermFreq / docCount : 0;
    this.normInverse = normInverseTable(params, this.avgdl);
    const { termBytes, idBytes } = data;
    this.#terms = Buffer.from(termBytes.buffer, termBytes.byteOffset, termBytes.byteLength);
    this.#ids = Buffer.from(idBytes.buffer, idBytes.byteOffset, idBytes.byteLength);
    const small = wasm && searchedExhaustively(data.stats.numDocs);
    this.kernel = small ? ScoringKernel.over(data.postingDocs, data.stats.numDocs) : undefined;
    this.#impacts = this.kernel?.impacts ?? new Float32Array(data.postingDocs.length);
    this.#maxImpact = new Float32Array(data.stats.numTerms).fill(Number.NaN);
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

  /**
   * Per posting, its impact (index by posting position). A term's impacts are written by the
   * first `maxImpact(t)` call, which every search makes before reading them.
   */
  get postingImpacts(): Float32Array {
    return this.#impacts;
  }

  /**
   * Term `t`'s largest posting impact (its score bound is that times the query weight); fills
   * the term's impacts on first call.
   */
  maxImpact(t: number): number {
    if (Number.isNaN(this.#maxImpact[t]!)) this.#fillImpacts(t);
    return this.#maxImpact[t]!;
  }

  #fillImpacts(t: number): void {
    const { postingStart, postingDocs, postingTfs, norms } = this.data;
    const normInverse = this.normInverse;
    const impacts = this.#impacts;
    let max = 0;
    for (let p = postingStart[t]!, end = postingStart[t + 1]!; p < end; p++) {
      const x = impact(postingTfs[p]!, normInverse[norms[postingDocs[p]!]!]!);
      impacts[p] = x;
      if (x > max) max = x;
    }
    this.#maxImpact[t] = max;
  }
}
