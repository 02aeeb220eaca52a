/**
 * Builds an index file in a worker thread: this thread reads the view's documents (async, so
 * the server stays responsive) and sends them in batches; the worker analyses, inverts and
 * writes. At most a few batches are in flight, bounding memory.
 */
import type { Worker } from 'node:worker_threads';
import type { TextView } from '../../collections/types.js';
import { raceAbort } from '../../util/abort-scope.js';
import { startModuleWorker } from '../../util/module-worker.js';
import type { Progress } from '../../util/progress.js';
import type { BuildWorkerData, FromWorker, ToWorker } from './build-protocol.js';
import type { IndexStats } from './index-data.js';
import { indexedText, type IndexedField } from './indexed-text.js';

const BATCH_DOCS = 2000;
const MAX_IN_FLIGHT = 4;

export interface BuildOptions extends BuildWorkerData {
  view: TextView;
  fields: readonly IndexedField[];
  progress: Progress;
  signal?: AbortSignal;
}

/** A worker with flow control: `send` waits while too many batches are unacknowledged. */
class WorkerChannel {
  readonly #worker: Worker;
  readonly finished: Promise<IndexStats>;
  #inFlight = 0;
  #wake: (() => void) | undefined;
  #failure: Error | undefined;

  constructor(worker: Worker) {
    this.#worker = worker;
    this.finished = new Promise<IndexStats>((resolve, reject) => {
      const fail = (error: Error) => {
        this.#failure ??= error;
        this.#wake?.();
        reject(this.#failure);
      };
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ack') {
          this.#inFlight--;
          this.#wake?.();
        } else if (message.type === 'done') resolve(message.stats);
        else fail(Object.assign(new Error(message.message), { stack: message.stack }));
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`index worker exited (code ${code})`)));
    });
    this.finished.catch(() => undefined);
  }

  async send(message: ToWorker): Promise<void> {
    while (this.#inFlight >= MAX_IN_FLIGHT && this.#failure === undefined) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
    if (this.#failure) throw this.#failure;
    if (message.type === 'docs') this.#inFlight++;
    this.#worker.postMessage(message);
  }

  async terminate(): Promise<void> {
    await this.#worker.terminate();
  }
}

/**
 * Reads every document of the view and writes the index file at `options.path`.
 * Rejects when the view cannot enumerate, the worker fails, or `signal` aborts.
 */
export async function buildIndexFile(options: BuildOptions): Promise<IndexStats> {
  const { view, fields, progress, signal } = options;
  if (view.documents === undefined)
    throw new Error(`view "${view.name}" cannot list its documents, so it cannot be indexed`);
  const channel = new WorkerChannel(
    startModuleWorker(import.meta.url, './build-worker.js', {
      analysis: options.analysis,
      path: options.path,
      key: options.key,
    }),
  );
  try {
    let ids: string[] = [];
    let texts: string[] = [];
    for await (const doc of view.documents()) {
      signal?.throwIfAborted();
      ids.push(doc.id);
      texts.push(indexedText(doc, fields));
      if (ids.length === BATCH_DOCS) {
        await channel.send({ type: 'docs', ids, texts });
        progress.tick(ids.length);
        ids = [];
        texts = [];
      }
    }
    if (ids.length > 0) await channel.send({ type: 'docs', ids, texts });
    progress.tick(ids.length);
    await channel.send({ type: 'finish' });
    const stats = await raceAbort(channel.finished, signal);
    progress.done();
    return stats;
  } finally {
    await channel.terminate();
  }
}
