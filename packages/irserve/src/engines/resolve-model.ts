/**
 * How an engine gets the files of the model a config field names: the app's model source
 * (which pins hub revisions), or one made for the call outside an app.
 */
import { createModelSource } from '../models/model-source.js';
import type { ModelRequest, ResolvedModel } from '../models/types.js';
import type { EngineContext } from './contract.js';

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
