/**
 * The SessionPool of an app. Engines reach it through `context.resources`, the map the app
 * shares among its engines, so two services of one app share a model and two apps in one
 * process (tests) do not.
 */
import type { EngineContext } from 'irserve/plugin';
import { SessionPool } from './session-pool.js';

const KEY = '@irserve/onnx:session-pool';

/**
 * The app's pool, created on first use; a context without `resources` gets a pool of its own.
 *
 * @example
 * const lease = await sessionPoolFor(this.context).acquire(folder, options);
 */
export function sessionPoolFor(context: EngineContext): SessionPool {
  const resources = context.resources;
  if (!resources) return new SessionPool();
  let pool = resources.get(KEY);
  if (!(pool instanceof SessionPool)) {
    pool = new SessionPool();
    resources.set(KEY, pool);
  }
  return pool as SessionPool;
}
