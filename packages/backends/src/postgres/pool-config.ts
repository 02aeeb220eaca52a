import type pg from 'pg';
import type { PostgresConfig } from './config.js';

/**
 * node-postgres pool settings from the engine config: pool size, connect and statement time
 * limits (the server cancels a statement past `timeout`; the client gives up half a second
 * later), and the password from the environment.
 *
 * @example
 * new pg.Pool(poolConfig(settings, process.env.PGPASSWORD))
 */
export function poolConfig(settings: PostgresConfig, password: string | undefined): pg.PoolConfig {
  const timeoutMs = Math.round(settings.timeout * 1000);
  const connectionString =
    settings.connection_string === undefined
      ? undefined
      : withPassword(settings.connection_string, password);
  return {
    ...(connectionString !== undefined ? { connectionString } : {}),
    ...(settings.host !== undefined ? { host: settings.host } : {}),
    ...(settings.port !== undefined ? { port: settings.port } : {}),
    ...(settings.database !== undefined ? { database: settings.database } : {}),
    ...(settings.user !== undefined ? { user: settings.user } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(settings.ssl !== undefined ? { ssl: settings.ssl } : {}),
    max: settings.pool_size,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 500,
    idleTimeoutMillis: 30_000,
    application_name: 'irserve',
  };
}

/**
 * node-postgres lets the fields parsed from a connection string override `password`, so the
 * password from the environment goes into the URL (one that already holds one keeps it).
 */
function withPassword(connectionString: string, password: string | undefined): string {
  if (password === undefined) return connectionString;
  const url = new URL(connectionString);
  if (url.password === '') url.password = encodeURIComponent(password);
  return url.toString();
}

/** `host:port/database` for messages; never the password. */
export function postgresAddress(settings: PostgresConfig): string {
  if (settings.connection_string !== undefined) {
    try {
      const url = new URL(settings.connection_string);
      return `${url.hostname}:${url.port || 5432}${url.pathname}`;
    } catch {
      return '<connection_string>';
    }
  }
  return `${settings.host ?? 'localhost'}:${settings.port ?? 5432}/${settings.database ?? ''}`;
}
