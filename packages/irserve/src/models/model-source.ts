/**
 * How an engine turns the model a config names into files on disk: a path that exists wins;
 * anything else is a Hugging Face Hub id, resolved through the shared cache and the hub by
 * `model-resolver.ts`, which is loaded only when a hub id is used (a config of local folders
 * never loads the HTTP client).
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { EngineContext } from '../engines/contract.js';
import type { Graphs, ModelKind } from './choose-files.js';

export type { Graphs, ModelKind } from './choose-files.js';

export interface ModelRequest {
  /** The value of the config field: a path, or a hub id (`org/name[@rev][/path][:QUANT]`). */
  reference: string;
  /** What the engine serves: an ONNX graph, an encoder-decoder pair, or a GGUF file. */
  kind: ModelKind;
  /** The config field, for messages (`config.encoder.model_path`; empty: none). */
  field: string;
  /** Graphs the engine's config names inside the model folder (`encoder_file`, ...). */
  graphs?: Graphs;
}

export interface ResolvedModel {
  /** What the engine loads: the model folder, or the file of a GGUF model (absolute). */
  readonly path: string;
  /** The model folder (absolute): `path` itself, or the folder of a GGUF file. */
  readonly folder: string;
  /** The graph inside `folder` a hub id chose, when it is not the loader's default. */
  readonly modelFile?: string;
  /** `local`: a path on disk; `cache` / `hub`: a hub id found in the cache or downloaded. */
  readonly source: 'local' | 'cache' | 'hub';
  /** The repository (`org/name`) of a hub id. */
  readonly repo?: string;
  /** The commit served (a hub id's revision resolved once, then pinned for the process). */
  readonly commit?: string;
  /** How the files are served: `checkpoint` is a repository with safetensors only. */
  readonly format?: 'onnx' | 'seq2seq' | 'gguf' | 'checkpoint';
  /** For logs: the path, or `org/name@revision (commit abc1234)`. */
  readonly label: string;
}

/** Resolves model references; one per app (it pins each hub revision to one commit). */
export interface ModelSource {
  resolve(request: ModelRequest): Promise<ResolvedModel>;
}

export interface ModelLogger {
  info(message: string): void;
  debug?(message: string): void;
}

export interface ModelSourceOptions {
  /** Directory relative paths resolve against (the config file's). */
  configDir: string;
  /** Where download progress and the commit served are logged (a pino logger fits). */
  logger: ModelLogger;
  /** Draw download progress bars. */
  interactive: boolean;
  /** Variables `HF_*` are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Never touch the network (irserve's `--offline`; `HF_HUB_OFFLINE=1` does the same). */
  offline?: boolean;
}

/**
 * The model source of one app: local paths directly, hub ids through a resolver created on
 * first use and kept (so a revision is pinned for the life of the app).
 *
 * @example
 * const models = createModelSource({ configDir: '.', logger, interactive: false });
 * const { path } = await models.resolve({ reference: 'BAAI/bge-small-en-v1.5', kind: 'onnx', field: 'model_path' });
 */
export function createModelSource(options: ModelSourceOptions): ModelSource {
  let hub: Promise<ModelSource> | undefined;
  return {
    async resolve(request) {
      const local = await localModel(options.configDir, request);
      if (local) return local;
      hub ??= import('./model-resolver.js').then(({ ModelResolver }) =>
        ModelResolver.create(options),
      );
      return (await hub).resolve(request);
    },
  };
}

/**
 * The path `reference` names when it exists (relative to `configDir`), else undefined: a path
 * that exists always wins over a hub id of the same spelling.
 *
 * @example await localModel('/srv/irserve', { reference: 'models/minilm', kind: 'onnx', field: 'model_path' })
 */
export async function localModel(
  configDir: string,
  request: ModelRequest,
): Promise<ResolvedModel | undefined> {
  const path = resolve(configDir, request.reference);
  const info = await stat(path).catch(() => undefined);
  if (!info) return undefined;
  return {
    path,
    // A GGUF model is a file; other loaders take the folder (and say so when given a file).
    folder: request.kind === 'gguf' && !info.isDirectory() ? dirname(path) : path,
    source: 'local',
    label: path,
  };
}

/**
 * The files of the model a config field names, for an engine: the app's model source (which
 * pins hub revisions), or one made for this call outside an app.
 *
 * @example
 * const model = await resolveModel(this.context, { reference: settings.model_path, kind: 'onnx', field: 'config.model_path' });
 * const lease = await pool.acquire(model.folder, { modelFile: model.modelFile });
 */
export function resolveModel(
  context: EngineContext,
  request: ModelRequest,
): Promise<ResolvedModel> {
  const source =
    context.models ??
    createModelSource({
      configDir: context.configDir,
      logger: context.logger,
      interactive: context.interactive,
    });
  return source.resolve(request);
}
