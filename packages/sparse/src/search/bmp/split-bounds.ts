/**
 * The dense block bounds of a query summed by several threads over the kernel's shared memory:
 * the block groups are cut into chunks (several per thread) that the search thread and helper
 * threads (bounds-worker.ts) take one at a time until none is left, meeting through a small
 * shared int32 area (bounds-control.ts) with `Atomics`. The search stays synchronous and never
 * waits for a helper to wake: a helper that is late (a busy machine) or gone leaves its chunks
 * to the search thread, which then waits at most for the one chunk a helper is summing. A helper
 * that fails to start or dies is reported with one log line. Every chunk writes exactly the sums
 * one thread writes, so results stay bit for bit those of one thread.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from 'irserve';
import {
  chunkRange,
  controlInts,
  Control,
  FAILED,
  helperFields,
  STOP,
  takeChunk,
} from './bounds-control.js';
import type { BoundsKernel } from './bounds-kernel.js';
import type { BoundsWorkerData } from './bounds-worker.js';

/**
 * Below this many groups of 32 blocks (blocks of 4 passages: about 2 M passages), one thread
 * sums the bounds: the hand-off costs more than the share it saves (bench/bmp-threads.mjs).
 */
export const MIN_SPLIT_GROUPS = 16_384;
/** Chunks per thread: a late helper's chunk is all the search thread may wait for. */
const CHUNKS_PER_THREAD = 16;
/** How long the search thread waits for a helper's chunk before calling the helper stuck. */
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
  fields: { ready: number; max: number };
  failed: boolean;
}

export class SplitBounds {
  readonly #kernel: BoundsKernel;
  readonly #helpers: Helper[] = [];
  readonly #control: Int32Array;
  readonly #chunks: number;
  readonly #log: (line: string) => void;
  #gen = 0;
  #closed = false;

  /** Starts `threads - 1` helpers over `kernel`'s memory; they take chunks once ready. */
  constructor(kernel: BoundsKernel, options: BoundsThreads) {
    this.#kernel = kernel;
    this.#log = options.log ?? ((line) => console.warn(line));
    const helpers =
      kernel.groups < (options.minGroups ?? MIN_SPLIT_GROUPS)
        ? 0
        : Math.max(0, options.threads - 1);
    this.#control = new Int32Array(new SharedArrayBuffer(4 * controlInts(helpers)));
    this.#chunks = Math.min(kernel.groups, 0xffff, CHUNKS_PER_THREAD * (helpers + 1));
    const start =
      options.startWorker ??
      ((data: BoundsWorkerData) => startModuleWorker(import.meta.url, './bounds-worker.js', data));
    for (let helper = 0; helper < helpers; helper++) {
      const data = {
        layout: kernel.layout,
        control: this.#control,
        helper,
        chunks: this.#chunks,
        groups: kernel.groups,
      };
      try {
        this.#watch({ worker: start(data), fields: helperFields(helper), failed: false });
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
    const control = this.#control;
    const chunks = this.#chunks;
    const gen = (this.#gen = (this.#gen + 1) & 0x7fff);
    control[Control.terms] = kernel.terms;
    control[Control.finished] = 0;
    for (const { fields } of this.#helpers) control[fields.max] = 0;
    Atomics.store(control, Control.ticket, gen << 16);
    Atomics.store(control, Control.gen, gen);
    Atomics.notify(control, Control.gen);
    let max = 0;
    for (let chunk; (chunk = takeChunk(control, gen, chunks)) >= 0;) {
      const [first, end] = chunkRange(chunk, chunks, kernel.groups);
      max = Math.max(max, kernel.sum(first, end));
      Atomics.add(control, Control.finished, 1);
    }
    this.#awaitChunks();
    for (const { fields } of this.#helpers) {
      const helperMax = control[fields.max]!;
      if (helperMax === FAILED) throw new Error('a thread summing bmp block bounds failed');
      max = Math.max(max, helperMax);
    }
    return max;
  }

  /** Stops and ends the helpers (their threads exit). */
  async close(): Promise<void> {
    this.#closed = true;
    const helpers = this.#helpers.splice(0);
    Atomics.store(this.#control, Control.gen, STOP);
    Atomics.notify(this.#control, Control.gen);
    await Promise.all(helpers.map(({ worker }) => worker.terminate()));
  }

  #ready(): Helper[] {
    return this.#helpers.filter(
      (helper) => !helper.failed && Atomics.load(this.#control, helper.fields.ready) === 1,
    );
  }

  /** Waits for the chunks helpers are still summing (at most one each). */
  #awaitChunks(): void {
    const control = this.#control;
    const stuckAt = performance.now() + STUCK_MS;
    for (let done; (done = Atomics.load(control, Control.finished)) < this.#chunks;) {
      Atomics.wait(control, Control.finished, done, STUCK_MS);
      if (performance.now() >= stuckAt && Atomics.load(control, Control.finished) < this.#chunks) {
        for (const helper of this.#helpers)
          this.#fail(helper, `stopped answering for ${STUCK_MS / 1000} s`);
        throw new Error('a thread summing bmp block bounds stopped answering');
      }
    }
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
