/**
 * The connection of one engine to its back-end, with its availability. A back-end that is down
 * when irserve starts does not stop the start: the service is listed as unavailable in
 * `/health`, its requests fail fast with ERR_UPSTREAM, and the link retries in the background
 * (1 s, doubling to `maxRetryMs`) until the back-end answers; then the service works without a
 * restart. A request that finds the back-end unreachable puts the link back into that state.
 */
import { IrserveError, type EngineContext } from 'irserve/plugin';
import { isNoAnswer } from './no-answer.js';
import { describe, isTimeout, redactSecrets } from './upstream-error.js';

type Logger = EngineContext['logger'];

export type LinkState = 'connecting' | 'up' | 'down' | 'closed';

export interface BackendLinkOptions<Client> {
  service: string;
  /** The back-end in words, with its address (no credentials): `PostgreSQL at db:5432`. */
  backend: string;
  logger: Logger;
  /** Opens a client and checks the back-end answers (and holds the index or table). */
  connect: () => Promise<Client>;
  /** Releases a client (pools closed, sockets ended). */
  release: (client: Client) => Promise<void>;
  /** Checks the back-end answers at all, on a connection of its own (see `reportFailure`). */
  ping?: () => Promise<unknown>;
  /** Longest wait between two background attempts, in ms. */
  maxRetryMs: number;
  secrets?: readonly string[];
}

/** Error codes of a connection that is gone (rather than of a bad query). */
const CONNECTION_LOST =
  /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|EPIPE|Connection terminated|ConnectionError|connection is in closed state|Can't add new command when connection is in closed state/i;

/**
 * @example
 * const link = new BackendLink({ service: 'pg', backend: 'PostgreSQL', logger, maxRetryMs: 30_000,
 *   connect: async () => { const pool = new Pool(); await pool.query('SELECT 1'); return pool },
 *   release: (pool) => pool.end() });
 * await link.start();            // never throws for an unreachable back-end
 * const pool = await link.client(); // ERR_UPSTREAM while the back-end is down
 */
export class BackendLink<Client> {
  readonly #options: BackendLinkOptions<Client>;
  #state: LinkState = 'connecting';
  #since = Date.now();
  #reason: string | undefined;
  #client: Client | undefined;
  #timer: NodeJS.Timeout | undefined;
  #attempt: Promise<void> | undefined;
  #probe: Promise<void> | undefined;
  #failures = 0;

  constructor(options: BackendLinkOptions<Client>) {
    this.#options = options;
  }

  get state(): LinkState {
    return this.#state;
  }

  /** The first attempt; failures are logged and retried in the background, never thrown. */
  async start(): Promise<void> {
    await this.#connect();
  }

  /** The connected client; ERR_UPSTREAM naming the last failure while the back-end is unreachable. */
  async client(): Promise<Client> {
    if (this.#state === 'closed')
      throw new IrserveError('ERR_SHUTTING_DOWN', `service "${this.#options.service}" is closed`);
    if (this.#client !== undefined) return this.#client;
    if (this.#state === 'connecting' && this.#attempt) await this.#attempt;
    if (this.#client !== undefined) return this.#client;
    throw new IrserveError(
      'ERR_UPSTREAM',
      `service "${this.#options.service}": ${this.#options.backend} is unavailable (${this.#reason ?? 'not connected yet'}); retrying in the background`,
      { details: { service: this.#options.service }, retryAfter: 1 },
    );
  }

  /**
   * Called with a request's failure: when it says the connection is gone, the link goes down
   * and reconnects in the background. A call that got no answer at all in time (`isNoAnswer`: a
   * frozen server, a half-open socket) makes the link `ping` the back-end on a fresh connection:
   * when that fails too, the link goes down the same way; a server that is only busy passes the
   * check and stays up. Other failures (a bad query, a server-side timeout) leave it up.
   */
  reportFailure(error: unknown): void {
    if (this.#state !== 'up') return;
    if (isConnectionLost(error)) this.#lose(error);
    else if (isNoAnswer(error)) this.#probe ??= this.#checkAlive(error);
  }

  /** Pings on a fresh connection: a back-end that does not answer that either is down. */
  async #checkAlive(noAnswer: unknown): Promise<void> {
    try {
      await this.#options.ping?.();
    } catch {
      if (this.#state === 'up') this.#lose(noAnswer);
    } finally {
      this.#probe = undefined;
    }
  }

  /** Down: the client released, reconnection scheduled. */
  #lose(error: unknown): void {
    const client = this.#client;
    this.#client = undefined;
    this.#markDown(error);
    if (client !== undefined) void this.#options.release(client).catch(() => undefined);
    this.#schedule();
  }

  health(): Record<string, unknown> {
    return {
      service: this.#options.service,
      backend: this.#options.backend,
      state: this.#state,
      since: new Date(this.#since).toISOString(),
      ...(this.#state === 'down' && this.#reason ? { reason: this.#reason } : {}),
    };
  }

  async close(): Promise<void> {
    this.#state = 'closed';
    clearTimeout(this.#timer);
    await this.#attempt?.catch(() => undefined);
    await this.#probe;
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) await this.#options.release(client);
  }

  #connect(): Promise<void> {
    this.#attempt = (async () => {
      try {
        const client = await this.#options.connect();
        if (this.#state === 'closed') {
          await this.#options.release(client);
          return;
        }
        this.#client = client;
        if (this.#state === 'down')
          this.#options.logger.info(
            { backend: this.#options.backend },
            'back-end reachable again: service available',
          );
        this.#set('up');
        this.#failures = 0;
      } catch (error) {
        if (this.#state === 'closed') return;
        this.#markDown(error);
        this.#schedule();
      } finally {
        this.#attempt = undefined;
      }
    })();
    return this.#attempt;
  }

  #markDown(error: unknown): void {
    const reason = redactSecrets(describe(error), this.#options.secrets ?? []);
    if (this.#state !== 'down')
      this.#options.logger.warn(
        { backend: this.#options.backend, reason },
        'back-end unreachable: service unavailable, retrying in the background',
      );
    this.#reason = reason;
    this.#set('down');
  }

  #schedule(): void {
    if (this.#state === 'closed') return;
    const wait = Math.min(1000 * 2 ** this.#failures, this.#options.maxRetryMs);
    this.#failures = Math.min(this.#failures + 1, 20);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#connect(), wait);
    this.#timer.unref();
  }

  #set(state: LinkState): void {
    if (this.#state !== state) this.#since = Date.now();
    this.#state = state;
  }
}

/** Whether `error` says the back-end's connection is gone (as opposed to a failed or slow query). */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // A back-end too slow to answer or to accept a connection is busy, not gone (pg says
  // "Connection terminated due to connection timeout"): no retry, and the service stays listed.
  if (isTimeout(error)) return false;
  const code = (error as { code?: unknown }).code;
  const text = `${typeof code === 'string' ? code : ''} ${error.name} ${error.message}`;
  if (CONNECTION_LOST.test(text)) return true;
  if (error instanceof AggregateError) return error.errors.some(isConnectionLost);
  return error.cause !== undefined && error.cause !== error && isConnectionLost(error.cause);
}
