/**
 * Statements cancelled on the server once nobody waits for their batch: a request that timed
 * out (its own `timeout` is often shorter than the engine's) or whose client left. Without it
 * the statement runs on to the engine's `statement_timeout`, holding a pooled connection; on a
 * slow database the requests behind it then queue for connections, time out in turn, and the
 * dead work keeps the database slow.
 */
import pg from 'pg';
import { batchAborted, batchAbortReason, onBatchAbort, type AbortOptions } from 'irserve/plugin';
import { within, type Deadline } from '../common/no-answer.js';

export class QueryCanceller {
  readonly #config: pg.PoolConfig;
  readonly #onIdleError: (error: unknown) => void;
  /** One connection of its own for `pg_cancel_backend`, made at the first cancel. */
  #control: pg.Pool | undefined;

  constructor(config: pg.PoolConfig, onIdleError: (error: unknown) => void) {
    this.#config = config;
    this.#onIdleError = onIdleError;
  }

  /**
   * Runs `run` on a pooled connection, all of it (the wait for the connection included) before
   * `deadline`: past it the call fails with a NoAnswerError (a frozen server, every connection
   * busy) and what it left behind is cleaned up when the server answers. If the batch is
   * abandoned meanwhile, or the deadline passes during the statement, the statement is
   * cancelled (`pg_cancel_backend`); a batch abandoned while it waited for a connection, or a
   * connection that came too late, runs nothing.
   *
   * @example
   * const { rows } = await canceller.withClient(pool, options, (client) => client.query(sql), deadlineIn(10));
   */
  async withClient<T>(
    pool: pg.Pool,
    options: AbortOptions | undefined,
    run: (client: pg.PoolClient) => Promise<T>,
    deadline: Deadline,
  ): Promise<T> {
    const client = await within(pool.connect(), deadline, 'a pooled connection', {
      late: (late) => late.release(),
    });
    let cancelled: Promise<boolean> | undefined;
    const cancel = () => void (cancelled ??= this.#cancel(client));
    const stopListening = onBatchAbort(options, cancel);
    // A checked-out connection the server ends between statements (while a cancel lands)
    // emits 'error', which nobody else listens to: it is kept, and the connection dropped.
    let ended: Error | undefined;
    const onError = (error: Error) => void (ended ??= error);
    client.on('error', onError);
    const running = (async () => {
      let failure: Error | undefined;
      try {
        if (batchAborted(options)) throw batchAbortReason(options);
        return await run(client);
      } catch (error) {
        failure = error as Error;
        throw error;
      } finally {
        stopListening?.();
        // Held until the cancel has landed: released sooner, the connection could be running
        // another request's statement when it arrives. One whose statement failed without a
        // landed cancel is not handed out again (as pool.query does).
        const landed = cancelled ? await cancelled : false;
        client.removeListener('error', onError);
        const broken = failure !== undefined && !landed && !batchAborted(options);
        client.release(ended ?? (broken ? failure : undefined));
      }
    })();
    return within(running, deadline, 'the statement', { expired: cancel });
  }

  /** Ends the cancel connection; a later cancel (after a reconnection) opens a new one. */
  async close(): Promise<void> {
    const control = this.#control;
    this.#control = undefined;
    await control?.end();
  }

  /**
   * Asks the server to cancel what `client`'s session runs; resolves to whether it did (a
   * failure, a frozen server, only loses the cancel).
   */
  async #cancel(client: pg.PoolClient): Promise<boolean> {
    const pid = (client as unknown as { processID: number | null }).processID;
    if (pid === null) return false;
    if (this.#control === undefined) {
      this.#control = new pg.Pool({ ...this.#config, max: 1 });
      this.#control.on('error', this.#onIdleError);
    }
    return this.#control.query('SELECT pg_cancel_backend($1)', [pid]).then(
      () => true,
      () => false,
    );
  }
}
