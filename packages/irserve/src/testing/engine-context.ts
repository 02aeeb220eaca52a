/**
 * The context an app lends an engine, built for a test that creates the engine itself (to call
 * its methods, read its health, or assert on what it logged) without starting an app.
 */
import { join, resolve } from 'node:path';
import type { Level, Logger } from 'pino';
import { Catalog } from '../collections/catalog.js';
import type { CollectionCatalog } from '../collections/types.js';
import type { Engine, EngineContext } from '../engines/contract.js';
import { createModelSource } from '../models/model-source.js';
import type { ModelSource } from '../models/types.js';
import { captureLogs, type CapturedLogs } from './captured-logs.js';

export interface EngineContextOptions {
  /** The service name the logger is a child of (`service` in each line); default `engine`. */
  name?: string;
  /** Where the engine's relative config paths resolve; default the current directory. */
  configDir?: string;
  /** The engine's own writable folder; default `<configDir>/cache/services/<name>`, as `startTestApp` gives. */
  cacheDir?: string;
  /** The app's collections; default none. */
  collections?: CollectionCatalog;
  /** A logger to use instead of the captured one (`logs` then stays empty). */
  logger?: Logger;
  /** The level the captured logger keeps from; default `debug`. */
  logLevel?: Level | 'silent';
  /** The map shared by an app's engines: pass one map to several contexts to share resources. */
  resources?: Map<string, unknown>;
  /** Where models come from; default a source over `configDir` and the Hugging Face Hub. */
  models?: ModelSource;
  /** Variables `HF_*` the default model source reads (a stand-in hub's `HF_ENDPOINT`); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Other services' engines, by service name, for an engine that delegates to them. */
  engines?: Readonly<Record<string, Engine>>;
  /** Whether progress bars may be drawn; default false. */
  interactive?: boolean;
}

/** A complete engine context, and what the engine logged through it. */
export interface TestEngineContext extends EngineContext {
  readonly resources: Map<string, unknown>;
  readonly models: ModelSource;
  readonly engine: (service: string) => Engine | undefined;
  /** The lines logged through `logger` (empty when the options gave a logger). */
  readonly logs: CapturedLogs;
}

/**
 * The context an app would give an engine of service `name`, its log lines kept in `logs`.
 *
 * @example
 * const context = engineContext({ configDir: dir.path });
 * const engine = new MyEngine({ name: 'mine', config: { index_path: 'index' }, context });
 * await engine.start();
 * expect(context.logs.messages('warn')).toEqual([]);
 */
export function engineContext(options: EngineContextOptions = {}): TestEngineContext {
  const name = options.name ?? 'engine';
  const configDir = resolve(options.configDir ?? '.');
  const captured = captureLogs(options.logLevel);
  const logger = (options.logger ?? captured.logger).child({ service: name });
  const interactive = options.interactive ?? false;
  const engines = options.engines ?? {};
  return {
    collections: options.collections ?? new Catalog([]),
    logger,
    cacheDir: options.cacheDir ?? join(configDir, 'cache', 'services', name),
    configDir,
    interactive,
    resources: options.resources ?? new Map(),
    models:
      options.models ??
      createModelSource({
        configDir,
        logger,
        interactive,
        ...(options.env ? { env: options.env } : {}),
      }),
    engine: (service) => (Object.hasOwn(engines, service) ? engines[service] : undefined),
    logs: captured.logs,
  };
}
