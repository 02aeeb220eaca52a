/**
 * A helper thread of {@link SplitBounds}: instantiates the bounds kernel over the search's shared
 * memory, says it is ready, then sums the range of groups each query posts to its control area
 * (split-bounds.ts describes the states) and wakes the search thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { boundsSummer, type BoundsLayout } from './bounds-kernel.js';
import { BoundsState, Control } from './bounds-control.js';

export interface BoundsWorkerData {
  layout: BoundsLayout;
  control: Int32Array;
}

if (parentPort) {
  const { layout, control } = workerData as BoundsWorkerData;
  const sum = boundsSummer(layout);
  Atomics.store(control, Control.ready, 1);
  Atomics.notify(control, Control.ready);
  for (;;) {
    const state = Atomics.load(control, Control.state);
    if (state === BoundsState.stop) break;
    if (
      state === BoundsState.posted &&
      Atomics.compareExchange(control, Control.state, BoundsState.posted, BoundsState.running) ===
        BoundsState.posted
    ) {
      const terms = control[Control.terms]!;
      control[Control.max] = sum(terms, control[Control.first]!, control[Control.end]!) | 0;
      Atomics.store(control, Control.state, BoundsState.done);
      Atomics.notify(control, Control.state);
    } else Atomics.wait(control, Control.state, state);
  }
}
