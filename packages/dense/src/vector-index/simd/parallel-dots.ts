import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from 'irserve';
import { TopK } from '../top-k.js';
import { emptyResult, type SearchResult } from '../types.js';
import { DotsKernel } from './dots-kernel.js';
import type { DotsTask, DotsWorkerData } from './dots-worker.js';
import type { SharedLayout } from './shared-vectors.js';

/** A thread is worth its hand-off only with this many vectors to scan. */
const MIN_ROWS_PER_THREAD = 4096;

/**
 * {@link DotsKernel} over several threads: the shared vectors are split in equal ranges; the
 * calling thread searches the first while helper threads search the others, then it merges the
 * per-range top-k. Synchronous: the caller blocks in `Atomics.wait`, as it would inside a
 * native multi-threaded search. Helpers start on first use and are `unref`ed.
 */
export class ParallelDots {
  readonly #layout: SharedLayout;
  readonly #threads: number;
  readonly #local: DotsKernel;
  readonly #workers: Worker[] = [];

  /** `layout` must have a scratch area per thread (`shareVectors(..., threads)`). */
  constructor(layout: SharedLayout, threads: number) {
    this.#layout = layout;
    this.#threads = Math.max(1, threads);
    this.#local = new DotsKernel(layout, 0);
  }

  search(queries: Float32Array, k: number, squaredNorms?: Float32Array): SearchResult {
    const count = this.#layout.count;
    const parts = Math.min(this.#threads, Math.max(1, Math.floor(count / MIN_ROWS_PER_THREAD)));
    if (parts === 1) return this.#local.search(0, count, queries, k, squaredNorms);
    const n = queries.length / this.#layout.dim;
    const sharedQueries = new Float32Array(new SharedArrayBuffer(queries.byteLength));
    sharedQueries.set(queries);
    const bounds = Array.from({ length: parts + 1 }, (_, p) => Math.round((count * p) / parts));
    const tasks = bounds.slice(1, -1).map((start, p) => {
      const task: DotsTask = {
        start,
        end: bounds[p + 2]!,
        queries: sharedQueries,
        k,
        squaredNorms,
        labels: new Int32Array(new SharedArrayBuffer(n * k * 4)),
        scores: new Float32Array(new SharedArrayBuffer(n * k * 4)),
        done: new Int32Array(new SharedArrayBuffer(4)),
      };
      this.#worker(p + 1).postMessage(task);
      return task;
    });
    const own = this.#local.search(0, bounds[1]!, queries, k, squaredNorms);
    for (const task of tasks) {
      Atomics.wait(task.done, 0, 0);
      if (task.done[0] !== 1) throw new Error('a Flat search thread failed');
    }
    return merge([own, ...tasks], n, k);
  }

  /** Stops the helper threads (a later search starts new ones). */
  close(): void {
    // Slot 0 is the calling thread: the array has a hole there.
    for (const worker of this.#workers) if (worker) void worker.terminate();
    this.#workers.length = 0;
  }

  #worker(slot: number): Worker {
    let worker = this.#workers[slot];
    if (!worker) {
      worker = startModuleWorker(import.meta.url, './dots-worker.js', {
        layout: this.#layout,
        slot,
      } satisfies DotsWorkerData);
      worker.unref();
      this.#workers[slot] = worker;
    }
    return worker;
  }
}

/** The best `k` of several `n * k` results, per query. */
function merge(parts: SearchResult[], n: number, k: number): SearchResult {
  const result = emptyResult(n, k);
  const top = new TopK(k);
  for (let q = 0; q < n; q++) {
    for (const { labels, scores } of parts) {
      for (let i = q * k; i < (q + 1) * k; i++) {
        if (labels[i]! >= 0) top.push(scores[i]!, labels[i]!);
      }
    }
    top.drainInto(result.labels, result.scores, q * k);
  }
  return result;
}
