/**
 * The WebAssembly side of exhaustive scoring (postings.wat): one memory holding a copy of the
 * posting lists' documents, the posting impacts (the index fills them there, term by term) and
 * one accumulator per document. Adding a posting list there is about four times faster than the
 * same loop over typed arrays in JavaScript, where every access is bounds-checked (Cranfield,
 * a query's lists: 9.1 against 2.3 µs; SciFact 22 against 5.9 µs).
 */
import { postingsWasm } from './postings-wasm.js';

/**
 * Above this much memory (documents and impacts of every posting, accumulators, candidates)
 * JavaScript scores.
 */
export const KERNEL_MAX_BYTES = 1 << 30;

const PAGE = 65536;

interface Exports {
  accumulate(
    docs: number,
    impacts: number,
    acc: number,
    start: number,
    end: number,
    w: number,
  ): void;
  above(acc: number, from: number, n: number, threshold: number): number;
  collect(acc: number, n: number, scale: number, least: number, out: number): number;
}

/** The slice of the WebAssembly API used here (@types/node 20 does not declare it). */
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

export class ScoringKernel {
  /** One accumulator per document, all zero between searches. */
  readonly acc: Float64Array;
  /** Per posting, its impact (see Bm25Index.postingImpacts). */
  readonly impacts: Float32Array;
  readonly #docsAt: number;
  readonly #impactsAt: number;
  /** Where `collect` lists its documents (one slot per document). */
  readonly #candidates: Int32Array;
  readonly #exports: Exports;
  /** Bytes of its memory. */
  readonly bytes: number;

  /**
   * A kernel over `postingDocs` for `numDocs` documents, or undefined when it would need more
   * than KERNEL_MAX_BYTES, WebAssembly is missing, or a posting names a document out of range
   * (a damaged index: its accumulator would land on other data in this memory, where JavaScript
   * ignores the write). The caller then scores in JavaScript.
   */
  static over(postingDocs: Int32Array, numDocs: number): ScoringKernel | undefined {
    const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
    const bytes = numDocs * 12 + postingDocs.length * 8;
    if (wasm === undefined || bytes > KERNEL_MAX_BYTES) return undefined;
    if (!allBelow(postingDocs, numDocs)) return undefined;
    return new ScoringKernel(wasm, postingDocs, numDocs, bytes);
  }

  private constructor(wasm: WasmApi, postingDocs: Int32Array, numDocs: number, bytes: number) {
    const pages = Math.max(1, Math.ceil(bytes / PAGE));
    // A fixed size: the views below stay valid because the memory never grows.
    const memory = new wasm.Memory({ initial: pages, maximum: pages });
    this.bytes = pages * PAGE;
    const postings = postingDocs.length;
    // acc (8 bytes a document) | posting documents (4 bytes a posting) | impacts (4) |
    // candidates (4 bytes a document)
    this.acc = new Float64Array(memory.buffer, 0, numDocs);
    this.#docsAt = numDocs * 8;
    new Int32Array(memory.buffer, this.#docsAt, postings).set(postingDocs);
    this.#impactsAt = this.#docsAt + postings * 4;
    this.impacts = new Float32Array(memory.buffer, this.#impactsAt, postings);
    this.#candidates = new Int32Array(memory.buffer, this.#impactsAt + postings * 4, numDocs);
    this.#exports = new wasm.Instance(new wasm.Module(postingsWasm), { env: { memory } })
      .exports as Exports;
  }

  /** Adds `weight` times the impacts of postings [start, end) to their documents' accumulators. */
  accumulate(start: number, end: number, weight: number): void {
    this.#exports.accumulate(this.#docsAt, this.#impactsAt, 0, start, end, weight);
  }

  /** The first document from `from` (below `n`) whose accumulator beats `threshold`, or `n`. */
  above(from: number, n: number, threshold: number): number {
    return this.#exports.above(0, from, n, threshold);
  }

  /**
   * The documents below `n` with `acc[d] * scale >= least`, in order: a view that the next
   * call overwrites. One pass with no branch to mispredict (select.ts lays these out).
   */
  collect(n: number, scale: number, least: number): Int32Array {
    const candidates = this.#candidates;
    const found = this.#exports.collect(0, n, scale, least, candidates.byteOffset);
    return candidates.subarray(0, found);
  }
}

/** Whether every value is in [0, limit). */
function allBelow(values: Int32Array, limit: number): boolean {
  let min = 0;
  let max = -1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min >= 0 && max < limit;
}
