import { dot } from '../kernels.js';
import { pqEncodeWasm } from './pq-encode-wasm.js';
import { instantiate, sharedMemory } from 'irserve/wasm';

interface PqEncodeExports {
  encode(
    rows: number,
    n: number,
    m: number,
    stride: number,
    books: number,
    norms: number,
    out: number,
  ): void;
}

/** Centroids per sub-quantizer: 8-bit codes (pq.ts's `PQ_KSUB`; the kernel assumes 256). */
const CENTROIDS = 256;
/** Rows encoded per kernel call: 1,024 rows of a 768-d model take 3 MiB of the kernel's memory. */
const BATCH_ROWS = 1024;

/**
 * Product-quantizer encoding in WebAssembly (pq-encode.wat): the codebooks and their squared
 * norms are copied into the kernel's memory once, then rows go through in batches, each
 * sub-vector zero-padded to a multiple of 4 floats. Gives the codes the exhaustive search
 * over each sub-quantizer's centroids gave (same float32 sums, same ties), about five times
 * faster, since nothing goes back to JavaScript per centroid.
 */
export class PqEncodeKernel {
  readonly #m: number;
  readonly #dsub: number;
  /** Floats per padded sub-vector. */
  readonly #stride: number;
  readonly #kernel: PqEncodeExports;
  readonly #rows: Float32Array;
  readonly #codes: Uint8Array;
  readonly #offsets: { books: number; norms: number; rows: number; codes: number };

  /** `codebooks`: `m * 256 * dsub` floats, sub-quantizer j's centroid c at `(j * 256 + c) * dsub`. */
  constructor(m: number, dsub: number, codebooks: Float32Array) {
    this.#m = m;
    this.#dsub = dsub;
    const stride = (this.#stride = Math.ceil(dsub / 4) * 4);
    const books = 0;
    const norms = books + m * CENTROIDS * stride * 4;
    const rows = norms + m * CENTROIDS * 4;
    const codes = rows + BATCH_ROWS * m * stride * 4;
    const memory = sharedMemory(codes + BATCH_ROWS * m);
    this.#offsets = { books, norms, rows, codes };
    this.#kernel = instantiate<PqEncodeExports>(pqEncodeWasm, memory);
    const padded = new Float32Array(memory.buffer, books, m * CENTROIDS * stride);
    padRows(codebooks, 0, m * CENTROIDS, dsub, padded, stride);
    const squaredNorms = new Float32Array(memory.buffer, norms, m * CENTROIDS);
    for (let c = 0; c < m * CENTROIDS; c++)
      squaredNorms[c] = dot(codebooks, c * dsub, codebooks, c * dsub, dsub);
    this.#rows = new Float32Array(memory.buffer, rows, BATCH_ROWS * m * stride);
    this.#codes = new Uint8Array(memory.buffer, codes, BATCH_ROWS * m);
  }

  /**
   * The `m`-byte codes of the rows of `data` (`n * m * dsub` floats), in order; with `residualTo`,
   * of each row minus its list's centroid (`labels[i]`'s row of `centroids`), computed batch by
   * batch in the kernel's memory as `residuals` would (the same float32 differences), so a
   * chunk's residuals never take a buffer of their own.
   */
  encode(
    data: Float32Array,
    residualTo?: { labels: Int32Array; centroids: Float32Array },
  ): Uint8Array {
    const m = this.#m;
    const dim = m * this.#dsub;
    const n = data.length / dim;
    const out = new Uint8Array(n * m);
    const { books, norms, rows, codes } = this.#offsets;
    for (let first = 0; first < n; first += BATCH_ROWS) {
      const count = Math.min(BATCH_ROWS, n - first);
      if (residualTo) this.#padResiduals(data, first, count, residualTo);
      else padRows(data, first * dim, count * m, this.#dsub, this.#rows, this.#stride);
      this.#kernel.encode(rows, count, m, this.#stride * 4, books, norms, codes);
      out.set(this.#codes.subarray(0, count * m), first * m);
    }
    return out;
  }

  /** Rows `first` to `first + count` of `data` minus their centroids, padded, into the batch. */
  #padResiduals(
    data: Float32Array,
    first: number,
    count: number,
    { labels, centroids }: { labels: Int32Array; centroids: Float32Array },
  ): void {
    const [m, dsub, stride, target] = [this.#m, this.#dsub, this.#stride, this.#rows];
    const dim = m * dsub;
    for (let i = 0; i < count; i++) {
      const row = (first + i) * dim;
      const centroid = labels[first + i]! * dim;
      for (let j = 0; j < m; j++) {
        const at = (i * m + j) * stride;
        for (let t = 0; t < dsub; t++)
          target[at + t] = data[row + j * dsub + t]! - centroids[centroid + j * dsub + t]!;
      }
    }
  }
}

/**
 * Copies `count` sub-vectors of `dsub` floats from `source` (from float `at`) into `target`,
 * `stride` floats apart; the padding stays zero (written once, never overwritten).
 */
function padRows(
  source: Float32Array,
  at: number,
  count: number,
  dsub: number,
  target: Float32Array,
  stride: number,
): void {
  if (stride === dsub) {
    target.set(source.subarray(at, at + count * dsub));
    return;
  }
  for (let i = 0; i < count; i++)
    target.set(source.subarray(at + i * dsub, at + (i + 1) * dsub), i * stride);
}
