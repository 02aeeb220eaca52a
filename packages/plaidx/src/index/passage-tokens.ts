/**
 * Each passage's tokens as the search reads them: their centroid codes (stages 2 and 3) and
 * packed residuals (stage 4). Kept per chunk, as the index's files hold them, never
 * concatenated: no array has to hold more than one chunk, so an index of any size opens on
 * Node 20 (whose typed arrays stop at 4 GiB). A passage never spans two chunks.
 */

export interface PassageTokens {
  /** `memory`: every chunk read at start; `paged`: read from the files through a page cache. */
  readonly storage: 'memory' | 'paged';
  /** The centroid of each token of passage `pid` (a view, valid until the next call). */
  codes(pid: number): Int32Array;
  /** The packed residuals of passage `pid`, `packedDim` bytes a token (valid until the next call). */
  residuals(pid: number): Uint8Array;
  /** Bytes of codes and residuals held in memory now. */
  residentBytes(): number;
  close(): Promise<void>;
}

/** Where each chunk's passages and tokens start (length: chunks + 1). */
export interface ChunkLayout {
  firstPassage: Int32Array;
  firstEmbedding: Float64Array;
  /** First embedding of each passage (length: passages + 1). */
  docOffsets: Float64Array;
}

/** The chunk holding passage `pid` (binary search over the chunks' first passages). */
export function chunkOf(layout: ChunkLayout, pid: number): number {
  const first = layout.firstPassage;
  let low = 0;
  let high = first.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (first[mid]! <= pid) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The chunk of passage `pid` and its tokens' first and end rows in that chunk. */
export function passageSpan(layout: ChunkLayout, pid: number): [number, number, number] {
  const { docOffsets, firstEmbedding } = layout;
  const chunk = chunkOf(layout, pid);
  const start = docOffsets[pid]! - firstEmbedding[chunk]!;
  return [chunk, start, start + docOffsets[pid + 1]! - docOffsets[pid]!];
}

/** Every chunk's codes and residuals in memory. */
export class MemoryTokens implements PassageTokens {
  readonly storage = 'memory';
  readonly #layout: ChunkLayout;
  readonly #codes: Int32Array[];
  readonly #residuals: Uint8Array[];
  readonly #packedDim: number;

  constructor(
    layout: ChunkLayout,
    codes: Int32Array[],
    residuals: Uint8Array[],
    packedDim: number,
  ) {
    this.#layout = layout;
    this.#codes = codes;
    this.#residuals = residuals;
    this.#packedDim = packedDim;
  }

  codes(pid: number): Int32Array {
    const [chunk, start, end] = passageSpan(this.#layout, pid);
    return this.#codes[chunk]!.subarray(start, end);
  }

  residuals(pid: number): Uint8Array {
    const [chunk, start, end] = passageSpan(this.#layout, pid);
    return this.#residuals[chunk]!.subarray(start * this.#packedDim, end * this.#packedDim);
  }

  residentBytes(): number {
    let bytes = 0;
    for (const c of this.#codes) bytes += c.byteLength;
    for (const r of this.#residuals) bytes += r.byteLength;
    return bytes;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
