/**
 * What every back-end engine shares: the link to its back-end (started in the background,
 * listed in `/health`, reconnected without a restart), the query embedder of kNN modes, the
 * secrets kept out of messages, and one way to call the back-end (retried on a broken
 * connection, failures mapped to ERR_UPSTREAM / ERR_UPSTREAM_TIMEOUT).
 */
import { BaseEngine, IrserveError } from 'irserve/plugin';
import { BackendLink } from './backend-link.js';
import type { EmbeddingSettings } from './config.js';
import { QueryEmbedder } from './query-embedder.js';
import { describe, redactSecrets, upstreamError } from './upstream-error.js';
import { withRetries } from './with-retries.js';

export interface BackendSetup<Client> {
  /** The back-end in words, with its address (no credentials): `PostgreSQL at db:5432`. */
  address: string;
  /** Passwords and keys to cut out of every message. */
  secrets: readonly (string | undefined)[];
  /** The kNN query embedder's settings, when the mode needs one. */
  embedding: EmbeddingSettings | undefined;
  /** Longest wait between two reconnection attempts, in seconds. */
  reconnectMaxWait: number;
  /** Opens a client (a pool, a cluster client). */
  connect: () => Promise<Client>;
  /**
   * Checks a new client: the back-end answers and holds the index or table. A client that
   * fails it is released before the error goes on (to the reconnection loop).
   */
  check: (client: Client) => Promise<unknown>;
  /** Releases a client (pools closed, sockets ended). */
  release: (client: Client) => Promise<void>;
  /**
   * Checks that the back-end answers at all, on a connection of its own, within the engine's
   * time limits: run when a call got no answer (a frozen server goes down, a busy one stays up).
   */
  ping?: () => Promise<unknown>;
}

/**
 * Base of the back-end engines. A subclass parses its settings, then calls `attach` once from
 * its constructor; `call` runs one back-end call on the connected client.
 *
 * @example
 * class MyStore extends BackendEngine<Pool> {
 *   readonly backendName = 'MyStore';
 *   constructor(init: EngineInit) {
 *     super(init);
 *     this.attach({ address: 'MyStore at h:1', secrets: [], embedding: undefined,
 *       reconnectMaxWait: 30, connect: openPool, check: (pool) => pool.query('SELECT 1'),
 *       release: (pool) => pool.end() });
 *   }
 *   searchBatch(requests) { return this.call((pool) => pool.search(requests), 2); }
 * }
 */
export abstract class BackendEngine<Client> extends BaseEngine {
  /** `PostgreSQL`, `OpenSearch`, `Manticore`: how messages name the back-end. */
  abstract get backendName(): string;
  #link: BackendLink<Client> | undefined;
  #embedder: QueryEmbedder | undefined;
  #secrets: string[] = [];

  /** Sets up the link and the embedder (once, from the subclass constructor). */
  protected attach(setup: BackendSetup<Client>): void {
    if (this.#link !== undefined) throw new Error(`service "${this.name}": attached twice`);
    this.#secrets = setup.secrets.filter((secret): secret is string => secret !== undefined);
    this.#embedder =
      setup.embedding === undefined
        ? undefined
        : new QueryEmbedder(setup.embedding, { name: this.name, context: this.context });
    this.#link = new BackendLink({
      service: this.name,
      backend: setup.address,
      logger: this.context.logger,
      maxRetryMs: setup.reconnectMaxWait * 1000,
      secrets: this.#secrets,
      connect: () => connectChecked(setup),
      release: setup.release,
      ...(setup.ping ? { ping: setup.ping } : {}),
    });
  }

  /** The query embedder of a kNN mode (its config schema requires `embedding` there). */
  protected get embedder(): QueryEmbedder {
    if (this.#embedder === undefined)
      throw new IrserveError('ERR_CONFIG', `service "${this.name}": this mode needs "embedding"`);
    return this.#embedder;
  }

  /** Connects (a back-end that is down is retried in the background, never failing the start). */
  async start(): Promise<void> {
    this.#embedder?.check();
    await this.#attached().start();
  }

  async close(): Promise<void> {
    await this.#attached().close();
    await this.#embedder?.close();
  }

  /** The back-end's state for `/health` (and `/avail`'s `unavailable`). */
  health(): Record<string, unknown> {
    return this.#attached().health();
  }

  /**
   * Runs `run` with the connected client, again up to `retries` times on a broken connection;
   * a failure becomes ERR_UPSTREAM or ERR_UPSTREAM_TIMEOUT naming the service, a lost
   * connection puts the service into the unavailable state until it reconnects.
   */
  protected async call<T>(run: (client: Client) => Promise<T>, retries = 0): Promise<T> {
    const link = this.#attached();
    const client = await link.client();
    try {
      return await withRetries(() => run(client), retries);
    } catch (error) {
      link.reportFailure(error);
      throw upstreamError(error, {
        service: this.name,
        backend: this.backendName,
        secrets: this.#secrets,
      });
    }
  }

  /**
   * An idle pooled connection that failed (the server closed it, restarted, timed it out):
   * logged, and left to the pool, which opens a new one when needed. It does not mark the
   * back-end down: a request that then finds it unreachable does (one dropped socket after a
   * slow statement must not make the whole service unavailable).
   */
  protected readonly droppedConnection = (error: unknown): void => {
    this.context.logger.debug(
      { reason: redactSecrets(describe(error), this.#secrets) },
      'idle back-end connection closed',
    );
  };

  #attached(): BackendLink<Client> {
    if (this.#link === undefined)
      throw new Error(`service "${this.name}": the engine never called attach()`);
    return this.#link;
  }
}

/** A new client that passed `check`; one that failed it is released (quietly) first. */
async function connectChecked<Client>(setup: BackendSetup<Client>): Promise<Client> {
  const client = await setup.connect();
  try {
    await setup.check(client);
    return client;
  } catch (error) {
    await setup.release(client).catch(() => undefined);
    throw error;
  }
}
