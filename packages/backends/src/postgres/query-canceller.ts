/**
 * Statements cancelled on the server once nobody waits for their batch: a request that timed
 * out (its own `timeout` is often shorter than the engine's) or whose client left. Without it
 * the statement runs on to the engine's `statement_timeout`, holding a pooled connection; on a
 * slow database the requests behind it then queue for connections, time out in turn, and the
 * dead work keeps the database slow.
 */
import pg from 'pg';
import { batchAborted, batchAbortReason, onBatchAbort, type AbortOptions } from 'irserve/plugin';

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
   * Runs `run` on a pooled connection; if the batch is abandoned meanwhile, the connection's
   * statement is cancelled (`pg_cancel_backend`) and `run` fails with PostgreSQL's
   * "canceling statement due to user request". A batch abandoned while it waited for a
   * connection runs nothing.
   *
   * @example
   * const { rows } = await canceller.withClient(pool, options, (client) => client.query(sql));
   */
  async withClient<T>(
    pool: pg.Pool,
    options: AbortOptions | undefined,
    run: (client: pg.PoolClient) => Promise<T>,
  ): Promise<T> {
    const client = await pool.connect();
    let cancelled: Promise<void> | undefined;
    const stopListening = onBatchAbort(options, () => {
      cancelled = this.#cancel(client);
    });
    let broken: Error | undefined;
    try {
      if (batchAborted(options)) throw batchAbortReason(options);
      return await run(client);
    } catch (error) {
      // As pool.query does: a failed connection is not handed out again (a cancel leaves it sound).
      if (cancelled === undefined && !batchAborted(options)) broken = error as Error;
      throw error;
    } finally {
      stopListening?.();
      // Held until the cancel has landed: released sooner, the connection could be running
      // another request's statement when it arrives.
      if (cancelled) await cancelled;
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.#control?.end();
  }

  /** Asks the server to cancel what `client`'s session runs; a failure only loses the cancel. */
  async #cancel(client: pg.PoolClient): Promise<void> {
    const pid = (client as unknown as { processID: number | null }).processID;
    if (pid === null) return;
    if (this.#control === undefined) {
      this.#control = new pg.Pool({ ...this.#config, max: 1 });
      this.#control.on('error', this.#onIdleError);
    }
    await this.#control.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
  }
}
