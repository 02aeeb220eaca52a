/**
 * The dense block bounds of a query summed by several threads over the kernel's shared memory:
 * helper threads (bounds-worker.ts) each sum a range of the block groups while the search thread
 * sums the first, and they meet through a small shared int32 area per helper (bounds-control.ts)
 * with `Atomics.wait`/`notify`. The search stays synchronous and the event loop is held no
 * longer than one thread would hold it: a helper that has not taken its range by the time the
 * search thread finished its own is not waited for, its range is taken back and summed by the
 * search thread. A helper that fails to start or dies leaves its share to the search thread,
 * with one log line. Every thread writes exactly the sums one thread writes, so results stay
 * bit for bit those of one thread.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from 'irserve';
import { BoundsState, Control, CONTROL_INTS } from './bounds-control.js';
import type { BoundsKernel } from './bounds-kernel.js';
import type { BoundsWorkerData } from './bounds-worker.js';

/**
 * Below this many groups of 32 blocks (blocks of 4 passages: about 2 M passages), one thread
 * sums the bounds: the hand-off costs more than the half it saves (bench/bmp-threads.mjs).
 */
export const MIN_SPLIT_GROUPS = 16_384;
/** How long the search thread waits for a helper that took its range before calling it stuck. */
const STUCK_MS = 10_000;

/** Threads a service sums its bounds with unless told: the cores there are, at most 4. */
export function defaultBoundsThreads(): number {
  return Math.min(4, availableParallelism());
}

export interface BoundsThreads {
  /** Threads summing the bounds, the search thread included (1: no helper). */
  threads: number;
  /** Where a failed helper is reported (once each); default `console.warn`. */
  log?: (line: string) => void;
  /** Split from this many groups on (default `MIN_SPLIT_GROUPS`; tests force it with 1). */
  minGroups?: number;
  /** Starts a helper (tests start one that fails). */
  startWorker?: (data: BoundsWorkerData) => Worker;
}

interface Helper {
  worker: Worker;
  control: Int32Array;
  failed: boolean;
}

export class SplitBounds {
  readonly #kernel: BoundsKernel;
  readonly #helpers: Helper[] = [];
  readonly #minGroups: number;
  readonly #log: (line: string) => void;
  #closed = false;

  /** Starts `threads - 1` helpers over `kernel`'s memory; they sum once they are ready. */
  constructor(kernel: BoundsKernel, options: BoundsThreads) {
    this.#kernel = kernel;
    this.#minGroups = options.minGroups ?? MIN_SPLIT_GROUPS;
    this.#log = options.log ?? ((line) => console.warn(line));
    const start =
      options.startWorker ??
      ((data: BoundsWorkerData) => startModuleWorker(import.meta.url, './bounds-worker.js', data));
    if (kernel.groups < this.#minGroups) return;
    for (let i = 1; i < options.threads; i++) {
      const control = new Int32Array(new SharedArrayBuffer(4 * CONTROL_INTS));
      try {
        this.#watch({ worker: start({ layout: kernel.layout, control }), control, failed: false });
      } catch (error) {
        this.#log(
          `bmp: a thread summing block bounds did not start (${String(error)}): ${this.#fewer()}`,
        );
      }
    }
  }

  /** Threads that sum now (the search thread and the ready helpers). */
  get threads(): number {
    return 1 + this.#ready().length;
  }

  /** Writes every block's dense bound into the kernel's `bounds`; returns the largest. */
  sum(): number {
    const kernel = this.#kernel;
    const helpers = this.#ready();
    if (helpers.length === 0) return kernel.sum();
    const parts = helpers.length + 1;
    const cut = (part: number) => Math.round((kernel.groups * part) / parts);
    helpers.forEach((helper, i) => post(helper.control, kernel.terms, cut(i + 1), cut(i + 2)));
    const started = performance.now();
    let max = kernel.sum(0, cut(1));
    const own = performance.now() - started;
    for (const helper of helpers) max = Math.max(max, this.#collect(helper, own));
    return max;
  }

  /** Stops and ends the helpers (their threads exit). */
  async close(): Promise<void> {
    this.#closed = true;
    const helpers = this.#helpers.splice(0);
    for (const { control } of helpers) {
      Atomics.store(control, Control.state, BoundsState.stop);
      Atomics.notify(control, Control.state);
    }
    await Promise.all(helpers.map(({ worker }) => worker.terminate()));
  }

  #ready(): Helper[] {
    return this.#helpers.filter(
      (helper) => !helper.failed && Atomics.load(helper.control, Control.ready) === 1,
    );
  }

  /** The largest bound of `helper`'s range, waiting at most `ownMs` for it to take the range. */
  #collect(helper: Helper, ownMs: number): number {
    const { control } = helper;
    const deadline = performance.now() + ownMs;
    let state = Atomics.load(control, Control.state);
    for (let left = ownMs; state === BoundsState.posted && left > 0;) {
      Atomics.wait(control, Control.state, BoundsState.posted, left);
      state = Atomics.load(control, Control.state);
      left = deadline - performance.now();
    }
    const { posted, running, idle } = BoundsState;
    if (
      state === posted &&
      Atomics.compareExchange(control, Control.state, posted, idle) === posted
    )
      return this.#kernel.sum(control[Control.first]!, control[Control.end]!);
    const stuckAt = performance.now() + STUCK_MS;
    while (Atomics.load(control, Control.state) === running) {
      Atomics.wait(control, Control.state, running, STUCK_MS);
      if (performance.now() >= stuckAt && Atomics.load(control, Control.state) === running) {
        this.#fail(helper, `stopped answering for ${STUCK_MS / 1000} s`);
        throw new Error('a thread summing bmp block bounds stopped answering');
      }
    }
    const max = control[Control.max]!;
    Atomics.store(control, Control.state, idle);
    return max;
  }

  #watch(helper: Helper): void {
    this.#helpers.push(helper);
    helper.worker.unref();
    helper.worker.on('error', (error) => this.#fail(helper, error.message));
    helper.worker.on('exit', (code) => this.#fail(helper, `exited with code ${code}`));
  }

  #fail(helper: Helper, why: string): void {
    if (helper.failed || this.#closed) return;
    helper.failed = true;
    void helper.worker.terminate();
    this.#log(`bmp: a thread summing block bounds failed (${why}): ${this.#fewer()}`);
  }

  #fewer(): string {
    const threads = 1 + this.#helpers.filter((helper) => !helper.failed).length;
    return threads === 1 ? 'the search thread sums them alone' : `${threads} threads sum them`;
  }
}

/** Hands groups `[first, end)` of a query of `terms` dense terms to the helper of `control`. */
function post(control: Int32Array, terms: number, first: number, end: number): void {
  control[Control.terms] = terms;
  control[Control.first] = first;
  control[Control.end] = end;
  Atomics.store(control, Control.state, BoundsState.posted);
  Atomics.notify(control, Control.state);
}
