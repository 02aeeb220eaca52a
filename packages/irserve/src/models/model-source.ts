/**
 * How an engine turns the model a config names into files on disk: a path that exists wins;
 * anything else is a Hugging Face Hub id, resolved through the shared cache and the hub by
 * `model-resolver.ts`, which is loaded only when a hub id is used (a config of local folders
 * never loads the HTTP client).
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ModelRequest, ModelSource, ModelSourceOptions, ResolvedModel } from './types.js';

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
