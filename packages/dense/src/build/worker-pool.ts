/**
 * A fixed set of worker threads running one module, each job answered by the thread it was
 * sent to; callers await answers in the order that suits them (builders keep a few jobs in
 * flight and take results in input order, so output never depends on thread timing).
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from 'irserve';

/** What a pool's worker module receives and answers: `{ seq, ... }` both ways. */
export type PoolReply<R> = { seq: number; result: R } | { seq: number; error: string };

/** Threads that each load `name` (relative to `callerUrl`) with `workerData`. */
export class WorkerPool<J, R> {
  readonly #workers: Worker[];
  readonly #waiting = new Map<number, { resolve: (r: R) => void; reject: (e: Error) => void }>();
  #next = 0;
  #failure: Error | undefined;
  #closing = false;

  constructor(callerUrl: string, name: string, workerData: unknown, threads: number) {
    this.#workers = Array.from({ length: Math.max(1, threads) }, () => {
      const worker = startModuleWorker(callerUrl, name, workerData);
      worker.on('message', (reply: PoolReply<R>) => this.#answer(reply));
      worker.on('error', (error) => this.#failAll(error));
      worker.on('exit', (code) => {
        if (!this.#closing) this.#failAll(new Error(`a worker thread stopped (exit code ${code})`));
      });
      return worker;
    });
  }

  get threads(): number {
    return this.#workers.length;
  }

  /** Sends `job` to the next thread (round robin), transferring `transfer`. */
  run(job: J, transfer: ArrayBuffer[] = []): Promise<R> {
    if (this.#failure) return Promise.reject(this.#failure);
    const seq = this.#next++;
    const answer = new Promise<R>((resolve, reject) => this.#waiting.set(seq, { resolve, reject }));
    this.#workers[seq % this.#workers.length]!.postMessage({ seq, job }, transfer);
    return answer;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }

  #answer(reply: PoolReply<R>): void {
    const waiting = this.#waiting.get(reply.seq);
    this.#waiting.delete(reply.seq);
    if ('error' in reply) waiting?.reject(new Error(reply.error));
    else waiting?.resolve(reply.result);
  }

  #failAll(error: Error): void {
    this.#failure = error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}

/**
 * Serves a pool from inside a worker: each `{ seq, job }` is answered with `handle(job)`'s
 * result (and its transfer list) or its error message.
 */
export function servePool<J, R>(
  port: {
    on(event: 'message', fn: (m: { seq: number; job: J }) => void): unknown;
    postMessage(m: unknown, t?: ArrayBuffer[]): void;
  },
  handle: (job: J) => { result: R; transfer?: ArrayBuffer[] },
): void {
  port.on('message', ({ seq, job }) => {
    try {
      const { result, transfer = [] } = handle(job);
      port.postMessage({ seq, result } satisfies PoolReply<R>, transfer);
    } catch (error) {
      port.postMessage({ seq, error: (error as Error).message } satisfies PoolReply<R>);
    }
  });
}
