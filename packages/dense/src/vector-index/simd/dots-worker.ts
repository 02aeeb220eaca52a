/**
 * A helper thread of {@link ParallelDots}: searches its share of the vectors with its own
 * kernel and writes the top-k into shared memory, then wakes the caller, which waits with
 * `Atomics.wait` (the search stays synchronous).
 */
import { parentPort } from 'node:worker_threads';
import { BatchDots } from './batch-dots.js';

export interface DotsTask {
  vectors: Float32Array;
  dim: number;
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

function run(task: DotsTask, kernels: Map<number, BatchDots>): void {
  let kernel = kernels.get(task.dim);
  if (!kernel) kernels.set(task.dim, (kernel = new BatchDots(task.dim)));
  const { start, end, dim } = task;
  const result = kernel.search(
    task.vectors.subarray(start * dim, end * dim),
    end - start,
    task.queries,
    task.k,
    task.squaredNorms?.subarray(start, end),
  );
  for (let i = 0; i < result.labels.length; i++) {
    const label = result.labels[i]!;
    task.labels[i] = label < 0 ? -1 : label + start;
  }
  task.scores.set(result.scores);
}

if (parentPort) {
  const kernels = new Map<number, BatchDots>();
  parentPort.on('message', (task: DotsTask) => {
    try {
      run(task, kernels);
      Atomics.store(task.done, 0, 1);
    } catch {
      Atomics.store(task.done, 0, 2);
    }
    Atomics.notify(task.done, 0);
  });
}
