import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type KvKwargs, redisOptions } from './kv-options.js';
import { type KvTopology, parseKvUrl, redactKvUrl } from './kv-url.js';

export type KvState = 'connecting' | 'up' | 'down';

/** ioredis's client classes (one server or Sentinel, and Cluster). */
export interface IoRedis {
  Redis: typeof Redis;
  Cluster: typeof Cluster;
}

/**
 * One connection to a Redis-protocol store (Redis, Valkey, KeyDB, Dragonfly) with its health.
 * While the store is down, commands are not sent at all; an outage is logged once when it
 * starts and once when it ends, never per request. ioredis reconnects by itself.
 */
export class KvConnection {
  readonly client: Redis | Cluster;
  readonly url: string;
  /** A Redis Cluster: commands of one entry may live on different nodes (no multi-key MULTI). */
  readonly cluster: boolean;
  #state: KvState = 'connecting';
  #since = Date.now();
  #suspendedUntil = 0;
  readonly #logger: Logger;

  /** `io` is ioredis's client classes, passed in so that ioredis loads only when used. */
  constructor(url: string, kwargs: KvKwargs, logger: Logger, io: IoRedis) {
    this.url = redactKvUrl(url);
    this.#logger = logger;
    const topology = parseKvUrl(url) ?? { kind: 'single', url };
    this.cluster = topology.kind === 'cluster';
    this.client = connect(topology, kwargs, io);
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
 * The client for a topology: one server, a Redis Cluster (slots discovered from any node,
 * refreshed on MOVED and on a failover) or a Sentinel-watched master (the sentinels name the
 * current master; ioredis follows a failover). Every form fails fast while disconnected.
 */
function connect(topology: KvTopology, kwargs: KvKwargs, io: IoRedis): Redis | Cluster {
  const { Redis, Cluster } = io;
  const options = redisOptions(kwargs);
  if (topology.kind === 'single') return new Redis(topology.url, options);
  const credentials = {
    ...(topology.username !== undefined ? { username: topology.username } : {}),
    ...(topology.password !== undefined ? { password: topology.password } : {}),
    ...(topology.tls && options.tls === undefined ? { tls: {} } : {}),
  };
  if (topology.kind === 'cluster') {
    const { db: _db, retryStrategy, ...nodeOptions } = options;
    return new Cluster(topology.nodes, {
      redisOptions: { ...nodeOptions, ...credentials },
      enableOfflineQueue: false,
      clusterRetryStrategy: (attempt: number) => retryStrategy?.(attempt) ?? 1000,
      slotsRefreshTimeout: options.connectTimeout ?? 2000,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      lazyConnect: false,
    });
  }
  return new Redis({
    ...options,
    ...credentials,
    sentinels: topology.nodes,
    name: topology.name!,
    ...(topology.db !== undefined ? { db: topology.db } : {}),
    ...(kwargs.sentinel_password !== undefined
      ? { sentinelPassword: kwargs.sentinel_password }
      : {}),
    ...(topology.tls ? { enableTLSForSentinelMode: true } : {}),
    sentinelRetryStrategy: (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2000),
  });
}

/**
 * The key-value connections of one app, shared by services that name the same store. ioredis is
 * imported by `create` only when the config names a store, so a config without one never loads it.
 */
export class KvPool {
  readonly #connections = new Map<string, KvConnection>();
  readonly #logger: Logger;
  readonly #io: IoRedis | undefined;

  constructor(logger: Logger, io?: IoRedis) {
    this.#logger = logger;
    this.#io = io;
  }

  /**
   * A pool; `needsClient` loads ioredis for it.
   *
   * @example
   * const pool = await KvPool.create(logger, true);
   */
  static async create(logger: Logger, needsClient: boolean): Promise<KvPool> {
    if (!needsClient) return new KvPool(logger);
    const { Redis, Cluster } = await import('ioredis');
    return new KvPool(logger, { Redis, Cluster });
  }

  get(url: string, kwargs: KvKwargs): KvConnection {
    const key = JSON.stringify([url, kwargs]);
    let connection = this.#connections.get(key);
    if (!connection) {
      // A store the start-up scan (usesKvStore) did not see: a bug, reported as such.
      if (this.#io === undefined)
        throw new Error(
          `internal: key-value store ${redactKvUrl(url)} used but ioredis not loaded`,
        );
      connection = new KvConnection(url, kwargs, this.#logger, this.#io);
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
