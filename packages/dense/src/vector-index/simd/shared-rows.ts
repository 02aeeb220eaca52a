/**
 * Encoded rows held in shared WebAssembly memories, so the kernels of codes.wat score them in
 * place on several threads. A wasm32 memory addresses 4 GiB, so each segment of a
 * {@link MemoryRows} (at most 1 GiB) gets its own memory; each memory starts with a header
 * (the constants every query shares, then one scratch area per thread) and ends with a few
 * spare bytes the kernels may read past the last row.
 */
import { availableParallelism } from 'node:os';
import { MemoryRows, rowsPerSegment, SEGMENT_BYTES } from '../row-store.js';
import { sharedMemory, type SharedMemory } from 'irserve/wasm';

/** Queries whose vectors a thread holds at once: each tile of rows is scored for all of them. */
export const CODE_QUERY_BLOCK = 16;
/** Bytes of rows per kernel call: they stay in cache while the block's queries score them. */
const TILE_BYTES = 256 << 10;
/** Bytes after the last row that the kernels may read (a row's last pass reads 32). */
const TAIL_BYTES = 64;

/** Where things are in each memory of rows of `rowBytes` with `slots` scratch areas. */
export interface RowsGeometry {
  /** Bytes a kernel pass covers per row: `rowBytes` rounded up to 32. */
  paddedBytes: number;
  /** Bytes of one query's vector (float32 per byte of a row, the most any storage needs). */
  vectorBytes: number;
  /** Byte offsets: the float-row mask (`paddedBytes`), then the SQ8 steps (`vectorBytes`). */
  maskOffset: number;
  stepsOffset: number;
  /** Rows per kernel call. */
  tileRows: number;
  /** Slot `s`'s scratch starts at `slotOffset + s * slotBytes`: query vectors, then scores. */
  slotOffset: number;
  slotBytes: number;
  /** Byte offset of the first row. */
  rowsOffset: number;
}

export function rowsGeometry(rowBytes: number, slots: number): RowsGeometry {
  const paddedBytes = Math.ceil(rowBytes / 32) * 32;
  const vectorBytes = paddedBytes * 4;
  const tileRows = Math.max(1, Math.floor(TILE_BYTES / rowBytes));
  const slotOffset = paddedBytes + vectorBytes;
  const slotBytes = CODE_QUERY_BLOCK * vectorBytes + Math.ceil(tileRows / 4) * 16;
  const rowsOffset = slotOffset + slots * slotBytes;
  return {
    paddedBytes,
    vectorBytes,
    maskOffset: 0,
    stepsOffset: paddedBytes,
    tileRows,
    slotOffset,
    slotBytes,
    rowsOffset,
  };
}

/** Rows whose segments are views of shared WebAssembly memories (one memory per segment). */
export class SharedRows extends MemoryRows {
  readonly memories: readonly SharedMemory[];
  /** Scratch areas per memory: at most this many threads search the rows at once. */
  readonly slots: number;
  readonly perSegment: number;

  private constructor(
    segments: Uint8Array[],
    memories: SharedMemory[],
    rowBytes: number,
    perSegment: number,
    slots: number,
  ) {
    super(segments, rowBytes, perSegment);
    this.memories = memories;
    this.slots = slots;
    this.perSegment = perSegment;
  }

  /**
   * Zeroed rows for `count` rows of `rowBytes` with scratch for `slots` threads (default: one
   * per core); undefined when the shared memories cannot be had (the caller then holds plain
   * {@link MemoryRows} and scores them in JavaScript).
   */
  static tryAllocate(
    count: number,
    rowBytes: number,
    slots = availableParallelism(),
    segmentBytes = SEGMENT_BYTES,
  ): SharedRows | undefined {
    const perSegment = rowsPerSegment(rowBytes, segmentBytes);
    const { rowsOffset } = rowsGeometry(rowBytes, slots);
    const segments: Uint8Array[] = [];
    const memories: SharedMemory[] = [];
    try {
      for (let first = 0; first < count; first += perSegment) {
        const rows = Math.min(perSegment, count - first);
        const memory = sharedMemory(rowsOffset + rows * rowBytes + TAIL_BYTES);
        memories.push(memory);
        segments.push(new Uint8Array(memory.buffer, rowsOffset, rows * rowBytes));
      }
    } catch {
      return undefined;
    }
    return new SharedRows(segments, memories, rowBytes, perSegment, slots);
  }
}

/** Zeroed rows for the kernels: {@link SharedRows} when the memories can be had, else plain. */
export function allocateRows(count: number, rowBytes: number): MemoryRows {
  return SharedRows.tryAllocate(count, rowBytes) ?? MemoryRows.allocate(count, rowBytes);
}
