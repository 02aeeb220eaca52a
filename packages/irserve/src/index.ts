/**
 * irserve as a library: build an app from a config, serve it, or call its core directly.
 *
 * @example
 * import { createApp, loadConfigFile } from 'irserve';
 * const { config, configDir } = await loadConfigFile('config.json');
 * const app = await createApp(config, { configDir });
 * await app.listen({ port: 8000, host: '127.0.0.1' });
 */
export { createApp, type App, type AppOptions } from './app.js';
export { loadConfigFile, validateConfig, ConfigError } from './config/load.js';
export { type IrserveConfig, type ConfigInput } from './config/schema.js';
export { configJsonSchema } from './config/json-schema.js';
export type { AppCore, PipelineRunner } from './core/app-core.js';
export type {
  Service,
  ServiceLookup,
  ServiceResult,
  CallOptions,
  RoleIO,
} from './registry/types.js';
export { ERROR_CATALOG, IrserveError, badRequest, type ErrorCode } from './errors.js';
export * from './plugin.js';
export {
  createProgress,
  type Progress,
  type ProgressLogger,
  type ProgressOptions,
} from './util/progress.js';
export { findExtras, loadExtra, type ExtraPackage } from './plugins/extras.js';
export { startModuleWorker } from './util/module-worker.js';
export { tuneV8ForServing } from './util/v8-tuning.js';
export { ApiHttpClient, type ApiHttpOptions } from './engines/apis/api-http.js';
export {
  OpenAIEmbeddingsClient,
  type EmbeddingsClientOptions,
} from './engines/apis/openai-embeddings.js';
