import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from 'irserve';
import { TopK } from '../top-k.js';
import { emptyResult, type SearchResult } from '../types.js';
import type { DotsTask, DotsWorkerData } from './dots-worker.js';
import { rangeKernel, type RangeKernel, type RangeLayout } from './range-kernel.js';

/** A thread is worth its hand-off only with this many vectors to scan. */
const MIN_ROWS_PER_THREAD = 4096;
/**
 * ... or, splitting a batch of queries instead (few vectors: k-means, IVF adds), this many
 * multiply-adds (about 10 ms): starting a helper thread costs tens of milliseconds.
 */
const MIN_WORK_PER_THREAD = 2 ** 25;

/**
 * A range kernel (dots.wat's for float32 vectors, codes.wat's for encoded rows) over several
 * threads: the shared rows are split in equal ranges; the
 * calling thread searches the first while helper threads search the others, then it merges the
 * per-range top-k. Synchronous: the caller blocks in `Atomics.wait`, as it would inside a
 * native multi-threaded search. Helpers start on first use and are `unref`ed.
 */
export class ParallelDots {
  readonly #layout: RangeLayout;
  readonly #threads: number;
  readonly #local: RangeKernel;
  readonly #workers: Worker[] = [];

  /** `layout` must have a scratch area per thread (`shareVectors(..., threads)`, `SharedRows`). */
  constructor(layout: RangeLayout, threads: number) {
    this.#layout = layout;
    this.#threads = Math.max(1, threads);
    this.#local = rangeKernel(layout, 0);
  }

  /**
   * Splits the vectors over the threads when there are enough of them, else a large batch of
   * queries (each thread then scans every vector for its share of the queries).
   */
  search(queries: Float32Array, k: number, squaredNorms?: Float32Array): SearchResult {
    const count = this.#layout.count;
    const n = queries.length / this.#layout.dim;
    const byRows = Math.min(this.#threads, Math.max(1, Math.floor(count / MIN_ROWS_PER_THREAD)));
    const work = n * count * this.#layout.dim;
    const byQueries = Math.min(
      this.#threads,
      Math.floor(n / 4),
      Math.floor(work / MIN_WORK_PER_THREAD),
    );
    if (byRows === 1 && byQueries <= 1)
      return this.#local.search(0, count, queries, k, squaredNorms);
    if (byRows >= byQueries) return this.#splitRows(byRows, queries, n, k, squaredNorms);
    return this.#splitQueries(byQueries, queries, n, k, squaredNorms);
  }

  #splitRows(
    parts: number,
    queries: Float32Array,
    n: number,
    k: number,
    squaredNorms: Float32Array | undefined,
  ): SearchResult {
    const count = this.#layout.count;
    const shared = sharedCopy(queries);
    const bounds = Array.from({ length: parts + 1 }, (_, p) => Math.round((count * p) / parts));
    const tasks = bounds
      .slice(1, -1)
      .map((start, p) =>
        this.#post(p + 1, { start, end: bounds[p + 2]!, queries: shared, k, squaredNorms }, n),
      );
    const own = this.#local.search(0, bounds[1]!, queries, k, squaredNorms);
    this.#wait(tasks);
    return merge([own, ...tasks], n, k);
  }

  #splitQueries(
    parts: number,
    queries: Float32Array,
    n: number,
    k: number,
    squaredNorms: Float32Array | undefined,
  ): SearchResult {
    const { count, dim } = this.#layout;
    const bounds = Array.from({ length: parts + 1 }, (_, p) => Math.round((n * p) / parts));
    const tasks = bounds.slice(1, -1).map((first, p) => {
      const slice = sharedCopy(queries.subarray(first * dim, bounds[p + 2]! * dim));
      const task = { start: 0, end: count, queries: slice, k, squaredNorms };
      return this.#post(p + 1, task, bounds[p + 2]! - first);
    });
    const own = this.#local.search(
      0,
      count,
      queries.subarray(0, bounds[1]! * dim),
      k,
      squaredNorms,
    );
    this.#wait(tasks);
    const result = emptyResult(n, k);
    [own, ...tasks].forEach((part, p) => {
      result.labels.set(part.labels, bounds[p]! * k);
      result.scores.set(part.scores, bounds[p]! * k);
    });
    return result;
  }

  /** Hands a range to the helper in `slot`; its result arrives in the returned task. */
  #post(
    slot: number,
    work: Pick<DotsTask, 'start' | 'end' | 'queries' | 'k' | 'squaredNorms'>,
    n: number,
  ): DotsTask {
    const task: DotsTask = {
      ...work,
      labels: new Int32Array(new SharedArrayBuffer(n * work.k * 4)),
      scores: new Float32Array(new SharedArrayBuffer(n * work.k * 4)),
      done: new Int32Array(new SharedArrayBuffer(4)),
    };
    this.#worker(slot).postMessage(task);
    return task;
  }

  #wait(tasks: DotsTask[]): void {
    for (const task of tasks) {
      Atomics.wait(task.done, 0, 0);
      if (task.done[0] !== 1) throw new Error('an exhaustive search thread failed');
    }
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

/** `values` in shared memory, for helper threads to read. */
function sharedCopy(values: Float32Array): Float32Array {
  const shared = new Float32Array(new SharedArrayBuffer(values.byteLength));
  shared.set(values);
  return shared;
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
