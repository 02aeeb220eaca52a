/**
 * A helper thread of {@link SplitBounds}: instantiates the bounds kernel over the search's shared
 * memory, says it is ready, then, for each query generation, takes chunks of the block groups
 * until none is left (bounds-control.ts describes the protocol), keeping the largest bound it
 * summed in its own field (`FAILED` should the kernel throw).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { boundsSummer, type BoundsLayout } from './bounds-kernel.js';
import { chunkRange, Control, FAILED, helperFields, STOP, takeChunk } from './bounds-control.js';

export interface BoundsWorkerData {
  layout: BoundsLayout;
  control: Int32Array;
  /** This helper's number (its fields in `control`), the chunks a query is cut into, groups. */
  helper: number;
  chunks: number;
  groups: number;
}

if (parentPort) {
  const { layout, control, helper, chunks, groups } = workerData as BoundsWorkerData;
  const sum = boundsSummer(layout);
  const fields = helperFields(helper);
  Atomics.store(control, fields.ready, 1);
  // A generation posted before this helper was ready is the search thread's alone.
  let seen = Atomics.load(control, Control.gen);
  for (;;) {
    const gen = Atomics.load(control, Control.gen);
    if (gen === STOP) break;
    if (gen === seen) {
      Atomics.wait(control, Control.gen, seen);
      continue;
    }
    seen = gen;
    const terms = Atomics.load(control, Control.terms);
    for (let chunk; (chunk = takeChunk(control, gen, chunks)) >= 0;) {
      try {
        const [first, end] = chunkRange(chunk, chunks, groups);
        const max = sum(terms, first, end) | 0;
        if (max > control[fields.max]!) Atomics.store(control, fields.max, max);
      } catch {
        Atomics.store(control, fields.max, FAILED);
      }
      if (Atomics.add(control, Control.finished, 1) + 1 === chunks)
        Atomics.notify(control, Control.finished);
    }
  }
}
