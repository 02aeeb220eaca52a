/**
 * An app for an engine's tests: the given engines (no extras discovered), silent, its relative
 * paths resolved against the test's folder, started; on a free port when a test needs a socket.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createApp, type App, type AppOptions } from '../app.js';
import type { EngineClass } from '../engines/contract.js';
import { pino } from '../prebundled/pino.js';

export interface TestAppOptions {
  /** Engine classes the config's services may name (besides the built-in ones). */
  engines?: readonly EngineClass[];
  /** Where the config's relative paths resolve, and the app's cache directory (`<dir>/cache`). */
  dir?: string;
  /** Default: silent. */
  logger?: Logger;
  /** Also listen on a free port of 127.0.0.1 (`url` in the answer). */
  listen?: boolean;
  /** Not started (to test start-up itself); default false. */
  noStart?: boolean;
  /** Anything else `createApp` takes. */
  options?: AppOptions;
}

export interface TestApp {
  app: App;
  /** `http://127.0.0.1:<port>` with `listen`, else undefined. */
  url: string | undefined;
  /** Closes the app (a function, so that it can be destructured). */
  close: () => Promise<void>;
}

/**
 * Creates and starts an app over `config` with the given engines.
 *
 * @example
 * const { app, url, close } = await startTestApp(
 *   { collections: [collection], services: [{ name: 'mine', engine: 'MyEngine', config: {} }] },
 *   { engines: [MyEngine], dir: dir.path, listen: true },
 * );
 */
export async function startTestApp(
  config: Record<string, unknown>,
  { engines = [], dir, logger, listen = false, noStart = false, options }: TestAppOptions = {},
): Promise<TestApp> {
  const app = await createApp(config, {
    logger: logger ?? pino({ level: 'silent' }),
    engines: [...engines],
    extras: false,
    interactive: false,
    ...(dir === undefined ? {} : { configDir: dir, cacheDir: join(dir, 'cache') }),
    ...options,
  });
  try {
    const url = listen ? await app.listen({ port: 0, host: '127.0.0.1' }) : undefined;
    if (!listen && !noStart) await app.start();
    return { app, url, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
}

/**
 * POSTs a JSON body to `url` through Fastify's `inject` (no socket).
 *
 * @example
 * const { status, body } = await post(app, '/search', { service: 'mine', query: 'jet', limit: 3 });
 */
export async function post(app: App, url: string, payload: unknown) {
  const reply = await app.http.inject({ method: 'POST', url, payload: payload as object });
  return { status: reply.statusCode, body: reply.json() };
}

/** GETs `url` through `inject`; its status and parsed JSON body. */
export async function get(app: App, url: string) {
  const reply = await app.http.inject({ method: 'GET', url });
  return { status: reply.statusCode, body: reply.json() };
}
