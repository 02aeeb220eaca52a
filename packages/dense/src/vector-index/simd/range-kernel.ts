import type { SearchResult } from '../types.js';
import { CodesKernel, type CodesLayout } from './codes-kernel.js';
import { DotsKernel } from './dots-kernel.js';
import type { SharedLayout } from './shared-vectors.js';

/** Rows in shared memory that a kernel searches by ranges: float32 vectors, or encoded rows. */
export type RangeLayout = SharedLayout | CodesLayout;

/** A thread's searcher of ranges of a layout's rows (see {@link ParallelDots}). */
export interface RangeKernel {
  search(
    start: number,
    end: number,
    queries: Float32Array,
    k: number,
    squaredNorms?: Float32Array,
  ): SearchResult;
}

/** The kernel for `layout` on the thread using scratch `slot`: dots.wat's or codes.wat's. */
export function rangeKernel(layout: RangeLayout, slot: number): RangeKernel {
  return 'storage' in layout ? new CodesKernel(layout, slot) : new DotsKernel(layout, slot);
}
