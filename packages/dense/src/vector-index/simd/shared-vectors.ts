import { dotsWasm } from './dots-wasm.js';
import { instantiate, sharedMemory, type SharedMemory } from 'irserve/wasm';

export interface DotsExports {
  dots(q: number, nq: number, t: number, nt: number, stride: number, out: number): void;
  dot1(query: number, t: number, nt: number, stride: number, out: number): void;
}

/** wasm32 addresses 4 GiB; the kernel module declares that maximum. */
const MAX_BYTES = 2 ** 32;
/** Vectors scored per kernel call: their scores stay in cache while the heaps read them. */
const TILE_BYTES = 4 << 20;
/** Queries per kernel call: 64 rows of a 768-d model are 192 KiB, which stay in L2. */
export const QUERY_BLOCK = 64;
/** Rows past the last vector that the kernels may read (they work on groups of 4). */
const TAIL_ROWS = 4;

/** Where things are in the shared memory, for every thread. */
export interface SharedLayout {
  memory: SharedMemory;
  dim: number;
  /** Floats per row: `dim` rounded up to a multiple of 4 (the kernel reads 4 at a time). */
  stride: number;
  count: number;
  /** Rows per kernel call. */
  tileRows: number;
  /** Bytes of one thread's scratch: a query block, then its scores for one tile. */
  scratchBytes: number;
  /** Byte offset of the first vector. */
  vectorsOffset: number;
}

/** The kernel instantiated over `layout.memory` (one per thread). */
export function instantiateDots(layout: SharedLayout): DotsExports {
  return instantiate<DotsExports>(dotsWasm, layout.memory);
}

/**
 * Copies `vectors` (`count` rows of `dim`) into a shared WebAssembly memory, rows padded to a
 * multiple of 4 floats, after one scratch area per thread. Undefined when it would not fit the
 * 4 GiB a wasm32 memory can address, or the memory cannot be had.
 */
export function shareVectors(
  vectors: Float32Array,
  dim: number,
  threads: number,
): SharedLayout | undefined {
  const count = vectors.length / dim;
  const stride = Math.ceil(dim / 4) * 4;
  const rowBytes = stride * 4;
  const tileRows = Math.max(4, Math.floor(TILE_BYTES / rowBytes) & ~3);
  const scratchBytes = QUERY_BLOCK * rowBytes + QUERY_BLOCK * tileRows * 4;
  const vectorsOffset = threads * scratchBytes;
  const bytes = vectorsOffset + (count + TAIL_ROWS) * rowBytes;
  if (bytes > MAX_BYTES) return undefined;
  let memory: SharedMemory;
  try {
    memory = sharedMemory(bytes);
  } catch {
    return undefined;
  }
  const target = new Float32Array(memory.buffer, vectorsOffset, count * stride);
  copyRows(vectors, dim, target, stride);
  return { memory, dim, stride, count, tileRows, scratchBytes, vectorsOffset };
}

/** Copies rows of `dim` floats from `source` into `target` at `stride` floats per row. */
export function copyRows(source: Float32Array, dim: number, target: Float32Array, stride: number) {
  if (stride === dim) {
    target.set(source);
    return;
  }
  const rows = source.length / dim;
  for (let i = 0; i < rows; i++) target.set(source.subarray(i * dim, (i + 1) * dim), i * stride);
}

/** The vectors as they sit in the shared memory (`count * stride` floats). */
export function sharedView(layout: SharedLayout): Float32Array {
  return new Float32Array(layout.memory.buffer, layout.vectorsOffset, layout.count * layout.stride);
}
