import { isConnectionLost } from './backend-link.js';

/**
 * Runs `call`, again up to `retries` times when it fails on a broken connection (a pooled socket
 * the back-end closed, a node that restarted). Timeouts and query errors are never retried: a
 * retry would only double the wait or repeat the same error.
 *
 * @example
 * const rows = await withRetries(() => pool.query(sql, params), 2);
 */
export async function withRetries<T>(call: () => Promise<T>, retries: number): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= retries || !isConnectionLost(error)) throw error;
      await new Promise((resolveWait) => setTimeout(resolveWait, 50 * 2 ** attempt));
    }
  }
}
