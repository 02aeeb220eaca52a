import type { RedisOptions } from 'ioredis';
import { z } from '../prebundled/zod.js';

/**
 * `cache_kv_kwargs`: client settings for the key-value store. irserve's names and redis-py's
 * (RoutIR's) are both accepted; anything else is an error, never silently dropped.
 */
export const kvKwargsSchema = z.strictObject({
  password: z.string().optional(),
  username: z.string().optional(),
  db: z.number().int().min(0).optional(),
  tls: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
  ssl: z.boolean().optional(),
  /** Seconds a store call may take before the request goes on uncached. */
  command_timeout: z.number().positive().optional(),
  socket_timeout: z.number().positive().optional(),
  connect_timeout: z.number().positive().optional(),
  socket_connect_timeout: z.number().positive().optional(),
  /** Sentinel URLs: the sentinels' own password, when they require one. */
  sentinel_password: z.string().optional(),
  /** redis-py's flag; irserve always decodes values itself. Accepted for RoutIR configs. */
  decode_responses: z.boolean().optional(),
});

export type KvKwargs = z.output<typeof kvKwargsSchema>;

/** Default bound on one store call: a slow store must not slow requests down. */
export const DEFAULT_COMMAND_TIMEOUT_S = 0.25;

/** ioredis options for a URL and kwargs; `rediss://` URLs use TLS. */
export function redisOptions(kwargs: KvKwargs): RedisOptions {
  const tls = kwargs.tls ?? (kwargs.ssl ? true : undefined);
  return {
    ...(kwargs.password !== undefined ? { password: kwargs.password } : {}),
    ...(kwargs.username !== undefined ? { username: kwargs.username } : {}),
    ...(kwargs.db !== undefined ? { db: kwargs.db } : {}),
    ...(tls ? { tls: tls === true ? {} : tls } : {}),
    commandTimeout:
      1000 * (kwargs.command_timeout ?? kwargs.socket_timeout ?? DEFAULT_COMMAND_TIMEOUT_S),
    connectTimeout: 1000 * (kwargs.connect_timeout ?? kwargs.socket_connect_timeout ?? 2),
    // Fail fast while disconnected instead of queueing: the request goes on uncached.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), 2000),
    lazyConnect: false,
  };
}
