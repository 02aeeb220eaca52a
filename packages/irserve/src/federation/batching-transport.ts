/**
 * Sends the relayed calls of one tick to an irserve remote as one `POST /batch`. With many
 * clients on a front, the remote then parses one HTTP request per batch instead of one per
 * call, and the front holds one upstream request instead of dozens: most of the cost of a relay
 * hop goes away (bench/federation.mjs). RoutIR remotes do not advertise the endpoint and are
 * called one request at a time, as before.
 */
import { IrserveError, isPassedThroughCode } from '../errors.js';
import { AbortScope, onAbort, reasonOf } from '../util/abort-scope.js';
import type { RemoteCallOptions } from './remote-client.js';
import type { RemoteTransport } from './remote-transport.js';

/** Paths that may travel in a batch, and the batch endpoint name of each. */
const BATCHABLE: Record<string, string> = {
  '/search': 'search',
  '/score': 'score',
  '/fuse': 'fuse',
  '/decompose_query': 'decompose_query',
};

/** Most calls sent in one batch (the remote accepts up to 1,024). */
const MAX_BATCH = 128;

interface Pending {
  endpoint: string;
  body: unknown;
  requestId: string | undefined;
  deadline: number | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** The batch it went in, once sent. */
  batch: SentBatch | undefined;
}

/** A batch sent: cut (its HTTP request aborted) once none of its calls is waited for. */
interface SentBatch {
  waiting: number;
  scope: AbortScope;
}

export class BatchingTransport implements RemoteTransport {
  readonly endpoint: string;
  readonly #inner: RemoteTransport;
  readonly #batchPath: string;
  /** Calls waiting for the next flush, by hop count (a batch carries one hop header). */
  readonly #queues = new Map<number, Pending[]>();
  #flushScheduled = false;

  constructor(inner: RemoteTransport, batchPath: string) {
    this.#inner = inner;
    this.endpoint = inner.endpoint;
    this.#batchPath = batchPath;
  }

  get unreachableSince(): number | undefined {
    return this.#inner.unreachableSince;
  }

  get(path: string, options?: RemoteCallOptions): Promise<unknown> {
    return this.#inner.get(path, options);
  }

  post(path: string, body: unknown, options: RemoteCallOptions = {}): Promise<unknown> {
    const endpoint = BATCHABLE[path];
    if (endpoint === undefined) return this.#inner.post(path, body, options);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(reasonOf(signal));
    return new Promise((resolve, reject) => {
      const hops = options.hops ?? 0;
      const queue = this.#queues.get(hops) ?? [];
      this.#queues.set(hops, queue);
      const stopListening = signal && onAbort(signal, () => this.#leave(call, reasonOf(signal)));
      const call: Pending = {
        endpoint,
        body: withRemainingTimeout(body, options.deadline),
        requestId: options.requestId,
        deadline: options.deadline,
        resolve: (value) => {
          stopListening?.();
          resolve(value);
        },
        reject: (error) => {
          stopListening?.();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
        batch: undefined,
      };
      queue.push(call);
      if (queue.length >= MAX_BATCH) this.#send(hops);
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        // After the I/O callbacks of this loop turn: the calls that arrived together go together.
        setImmediate(() => this.#flush());
      }
    });
  }

  async close(): Promise<void> {
    this.#flush();
    await this.#inner.close();
  }

  #flush(): void {
    this.#flushScheduled = false;
    for (const hops of [...this.#queues.keys()]) this.#send(hops);
  }

  /**
   * A caller stopped waiting: a queued call leaves its queue; the last caller of a sent batch to
   * leave cuts its request (the remote sees its client leave and drops the batch's work).
   */
  #leave(call: Pending, reason: Error): void {
    if (call.batch === undefined) {
      for (const queue of this.#queues.values()) {
        const index = queue.indexOf(call);
        if (index >= 0) queue.splice(index, 1);
      }
    } else if (--call.batch.waiting === 0) call.batch.scope.abort(reason);
    call.reject(reason);
  }

  #send(hops: number): void {
    const calls = this.#queues.get(hops);
    this.#queues.delete(hops);
    if (!calls || calls.length === 0) return;
    const batch: SentBatch = { waiting: calls.length, scope: new AbortScope() };
    for (const call of calls) call.batch = batch;
    const requests = calls.map(({ endpoint, body }) => ({ endpoint, body }));
    // The batch may run until its latest item's deadline; each item carries its own `timeout`.
    const deadlines = calls.map((call) => call.deadline);
    const deadline = deadlines.includes(undefined)
      ? undefined
      : Math.max(...(deadlines as number[]));
    const options = { requestId: calls[0]!.requestId, hops, deadline, signal: batch.scope };
    this.#inner.post(this.#batchPath, { requests }, options).then(
      (answer) => this.#settle(calls, answer),
      (error: unknown) => calls.forEach((call) => call.reject(error)),
    );
  }

  #settle(calls: Pending[], answer: unknown): void {
    const responses = (answer as { responses?: unknown } | null)?.responses;
    if (!Array.isArray(responses) || responses.length !== calls.length) {
      const error = new IrserveError(
        'ERR_UPSTREAM',
        `remote ${this.endpoint}${this.#batchPath} answered ${calls.length} calls with a malformed batch`,
        { details: { remote: this.endpoint } },
      );
      calls.forEach((call) => call.reject(error));
      return;
    }
    calls.forEach((call, i) => {
      const { status, body } = (responses[i] ?? {}) as { status?: unknown; body?: unknown };
      if (status === 200) call.resolve(body);
      else call.reject(this.#itemError(call.endpoint, status, body));
    });
  }

  /** The error a lone call would have raised (see RemoteClient): 4xx codes pass, the rest is upstream. */
  #itemError(endpoint: string, status: unknown, body: unknown): IrserveError {
    const { error, code } = (body ?? {}) as { error?: unknown; code?: unknown };
    const message = typeof error === 'string' ? error : `HTTP ${String(status)}`;
    const where = `remote ${this.endpoint}/${endpoint}`;
    const passed = typeof code === 'string' && isPassedThroughCode(code) ? code : undefined;
    if (typeof status === 'number' && status >= 400 && status < 500 && status !== 401)
      return new IrserveError(passed ?? 'ERR_BAD_REQUEST', `${where}: ${message}`, {
        details: { remote: this.endpoint },
      });
    // The remote's deadline answer is the caller's own deadline passing: kept as it is.
    if (code === 'ERR_TIMEOUT')
      return new IrserveError('ERR_TIMEOUT', `${where}: ${message}`, {
        details: { remote: this.endpoint },
      });
    const timedOut = code === 'ERR_UPSTREAM_TIMEOUT';
    return new IrserveError(
      timedOut ? 'ERR_UPSTREAM_TIMEOUT' : 'ERR_UPSTREAM',
      `${where} failed: ${message}`,
      { details: { remote: this.endpoint } },
    );
  }
}

/** The item's body with its time left as `timeout` (seconds), so the remote applies its deadline. */
function withRemainingTimeout(body: unknown, deadline: number | undefined): unknown {
  if (deadline === undefined || body === null || typeof body !== 'object') return body;
  const seconds = Math.max(0.001, (deadline - Date.now()) / 1000);
  return { ...(body as Record<string, unknown>), timeout: Number(seconds.toFixed(3)) };
}
