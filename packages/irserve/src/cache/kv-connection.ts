import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redact } from '../processors/create-store.js';
import { type KvKwargs, redisOptions } from './kv-options.js';

export type KvState = 'connecting' | 'up' | 'down';

/** ioredis's client class. */
export type RedisClass = typeof Redis;

/**
 * One connection to a Redis-protocol store (Redis, Valkey, KeyDB, Dragonfly) with its health.
 * While the store is down, commands are not sent at all; an outage is logged once when it
 * starts and once when it ends, never per request. ioredis reconnects by itself.
 */
export class KvConnection {
  readonly client: Redis;
  readonly url: string;
  #state: KvState = 'connecting';
  #since = Date.now();
  #suspendedUntil = 0;
  readonly #logger: Logger;

  /** `RedisClient` is ioredis's `Redis` class, passed in so that ioredis loads only when used. */
  constructor(url: string, kwargs: KvKwargs, logger: Logger, RedisClient: RedisClass) {
    this.url = redact(url);
    this.#logger = logger;
    this.client = new RedisClient(url, redisOptions(kwargs));
    this.client.on('ready', () => this.#transition('up'));
    this.client.on('error', (error: Error) => this.markDown(error));
    this.client.on('close', () => this.markDown());
  }

  get state(): KvState {
    return this.#state;
  }

  /**
   * Whether commands should be sent now. After a failed command on a live connection (a slow
   * store), commands pause for a second, then resume by themselves.
   */
  get usable(): boolean {
    if (this.client.status !== 'ready') return false;
    if (this.#state === 'up') return true;
    if (Date.now() < this.#suspendedUntil) return false;
    this.#transition('up');
    return true;
  }

  /** Records a failure (connection error or command timeout); logs only on the transition. */
  markDown(error?: Error): void {
    this.#suspendedUntil = Date.now() + 1000;
    if (this.#state === 'down') return;
    this.#transition('down', error);
  }

  health(): { url: string; state: KvState; since: string } {
    return { url: this.url, state: this.#state, since: new Date(this.#since).toISOString() };
  }

  async close(): Promise<void> {
    this.client.removeAllListeners();
    this.client.on('error', () => {});
    await this.client.quit().catch(() => this.client.disconnect());
  }

  #transition(state: KvState, error?: Error): void {
    const previous = this.#state;
    this.#state = state;
    this.#since = Date.now();
    if (state === 'down') {
      this.#logger.warn(
        { store: this.url, reason: error?.message },
        'cache store unreachable: answering uncached until it returns',
      );
    } else if (previous === 'down') {
      this.#logger.info({ store: this.url }, 'cache store reachable again: caching resumed');
    }
  }
}

/**
 * The key-value connections of one app, shared by services that name the same store. ioredis is
 * imported by `create` only when the config names a store, so a config without one never loads it.
 */
export class KvPool {
  readonly #connections = new Map<string, KvConnection>();
  readonly #logger: Logger;
  readonly #RedisClient: RedisClass | undefined;

  constructor(logger: Logger, RedisClient?: RedisClass) {
    this.#logger = logger;
    this.#RedisClient = RedisClient;
  }

  /**
   * A pool; `needsClient` loads ioredis for it.
   *
   * @example
   * const pool = await KvPool.create(logger, true);
   */
  static async create(logger: Logger, needsClient: boolean): Promise<KvPool> {
    if (!needsClient) return new KvPool(logger);
    const { Redis } = await import('ioredis');
    return new KvPool(logger, Redis);
  }

  get(url: string, kwargs: KvKwargs): KvConnection {
    const key = JSON.stringify([url, kwargs]);
    let connection = this.#connections.get(key);
    if (!connection) {
      // A store the start-up scan (usesKvStore) did not see: a bug, reported as such.
      if (this.#RedisClient === undefined)
        throw new Error(`internal: key-value store ${redact(url)} used but ioredis not loaded`);
      connection = new KvConnection(url, kwargs, this.#logger, this.#RedisClient);
      this.#connections.set(key, connection);
    }
    return connection;
  }

  health(): ReturnType<KvConnection['health']>[] {
    return [...this.#connections.values()].map((connection) => connection.health());
  }

  async close(): Promise<void> {
    await Promise.allSettled(
      [...this.#connections.values()].map((connection) => connection.close()),
    );
    this.#connections.clear();
  }
}
