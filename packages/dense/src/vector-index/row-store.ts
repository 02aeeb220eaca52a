/**
 * Fixed-size rows (encoded vectors) held in memory in segments of at most 1 GiB, so a store
 * may be larger than one typed array can be (Node 20 refuses a Uint8Array past 4 GiB). Scans
 * visit the rows a segment at a time; a paged store (rows read from a file on demand)
 * implements the same interface.
 */

/** Visits rows `row .. row + rows - 1`, stored from `byteOffset` in `bytes`. */
export type RowVisitor = (bytes: Uint8Array, byteOffset: number, row: number, rows: number) => void;

export interface RowStore {
  readonly count: number;
  readonly rowBytes: number;
  /** Bytes this store holds in the process's memory. */
  readonly residentBytes: number;
  /** Visits rows `first .. first + count - 1` in order, in pieces; views are valid during the call. */
  scan(first: number, count: number, visit: RowVisitor): void;
  /** The bytes of one row. */
  row(index: number): Uint8Array;
  /** Releases the file a paged store reads (the store is unusable afterwards). */
  close?(): void;
}

/** The largest segment: 1 GiB. */
export const SEGMENT_BYTES = 2 ** 30;

/** Rows per segment for rows of `rowBytes` (at least one). */
export function rowsPerSegment(rowBytes: number, segmentBytes = SEGMENT_BYTES): number {
  return Math.max(1, Math.floor(segmentBytes / Math.max(1, rowBytes)));
}

/** Rows in memory, `perSegment` rows per segment (every segment full but the last). */
export class MemoryRows implements RowStore {
  readonly count: number;
  readonly rowBytes: number;
  readonly segments: readonly Uint8Array[];
  readonly #perSegment: number;

  constructor(segments: readonly Uint8Array[], rowBytes: number, perSegment: number) {
    let count = 0;
    segments.forEach((segment, i) => {
      const rows = segment.byteLength / rowBytes;
      const full = i < segments.length - 1;
      if (!Number.isInteger(rows) || (full && rows !== perSegment) || rows > perSegment)
        throw new RangeError(`segment ${i} holds ${segment.byteLength} bytes, not whole rows`);
      count += rows;
    });
    this.segments = segments;
    this.rowBytes = rowBytes;
    this.count = count;
    this.#perSegment = perSegment;
  }

  /**
   * Allocates zeroed segments for `count` rows.
   *
   * @example const rows = MemoryRows.allocate(1000, 768); codec.encode(v, rows.segments[0], 0);
   */
  static allocate(count: number, rowBytes: number, segmentBytes = SEGMENT_BYTES): MemoryRows {
    const perSegment = rowsPerSegment(rowBytes, segmentBytes);
    const segments: Uint8Array[] = [];
    for (let first = 0; first < count; first += perSegment)
      segments.push(new Uint8Array(Math.min(perSegment, count - first) * rowBytes));
    return new MemoryRows(segments, rowBytes, perSegment);
  }

  /** A store over one array that already holds every row (under 4 GiB). */
  static of(bytes: Uint8Array, rowBytes: number): MemoryRows {
    const rows = bytes.byteLength / rowBytes;
    return new MemoryRows(bytes.byteLength ? [bytes] : [], rowBytes, Math.max(1, rows));
  }

  get residentBytes(): number {
    return this.count * this.rowBytes;
  }

  scan(first: number, count: number, visit: RowVisitor): void {
    const per = this.#perSegment;
    let row = first;
    const end = first + count;
    while (row < end) {
      const segment = Math.floor(row / per);
      const inSegment = row - segment * per;
      const rows = Math.min(end - row, per - inSegment);
      visit(this.segments[segment]!, inSegment * this.rowBytes, row, rows);
      row += rows;
    }
  }

  row(index: number): Uint8Array {
    const segment = Math.floor(index / this.#perSegment);
    const at = (index - segment * this.#perSegment) * this.rowBytes;
    return this.segments[segment]!.subarray(at, at + this.rowBytes);
  }

  /** The segment and byte offset of row `index` (for writing rows in place). */
  locate(index: number): { segment: Uint8Array; byteOffset: number } {
    const segment = Math.floor(index / this.#perSegment);
    return {
      segment: this.segments[segment]!,
      byteOffset: (index - segment * this.#perSegment) * this.rowBytes,
    };
  }
}
