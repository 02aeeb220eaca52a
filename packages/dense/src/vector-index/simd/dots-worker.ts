/**
 * A helper thread of {@link ParallelDots}: searches its range of the shared rows with its
 * own kernel instance and writes the top-k into shared memory, then wakes the caller, which
 * waits with `Atomics.wait` (the search stays synchronous).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { rangeKernel, type RangeLayout } from './range-kernel.js';

export interface DotsWorkerData {
  layout: RangeLayout;
  slot: number;
}

export interface DotsTask {
  start: number;
  end: number;
  queries: Float32Array;
  k: number;
  squaredNorms: Float32Array | undefined;
  labels: Int32Array;
  scores: Float32Array;
  /** [0]: 0 while running, 1 when done, 2 on failure. */
  done: Int32Array;
}

if (parentPort) {
  const { layout, slot } = workerData as DotsWorkerData;
  const kernel = rangeKernel(layout, slot);
  parentPort.on('message', (task: DotsTask) => {
    try {
      const result = kernel.search(task.start, task.end, task.queries, task.k, task.squaredNorms);
      task.labels.set(result.labels);
      task.scores.set(result.scores);
      Atomics.store(task.done, 0, 1);
    } catch {
      Atomics.store(task.done, 0, 2);
    }
    Atomics.notify(task.done, 0);
  });
}
