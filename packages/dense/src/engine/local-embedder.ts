/**
 * Embeddings from a local ONNX model (`encoder`). @irserve/onnx (and with it onnxruntime-node)
 * is imported here, lazily, only when a service configures `encoder`: a Dense service over an
 * API never loads it, and an install without it fails at start-up with what to install.
 */
import { IrserveError, resolveModel, type EngineContext } from 'irserve/plugin';
import type * as Onnx from '@irserve/onnx';
import { encoderModel, type EncoderConfig } from './encoder-config.js';
import type { Embedder } from './embedder.js';

/**
 * @irserve/onnx, or an ERR_CONFIG saying how to install it.
 *
 * @example
 * const onnx = await importOnnx(import('@irserve/onnx'));
 */
export async function importOnnx(loading: Promise<typeof Onnx>): Promise<typeof Onnx> {
  try {
    return await loading;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      code === 'ERR_MODULE_NOT_FOUND' &&
      String((error as Error).message).includes('@irserve/onnx')
    )
      throw new IrserveError(
        'ERR_CONFIG',
        'config.encoder runs a local model with the package @irserve/onnx, which is not installed: npm install @irserve/onnx (or use embedding_base_url)',
        { cause: error },
      );
    throw error;
  }
}

/**
 * Loads the encoder's model (shared with every service naming the same folder) as an Embedder.
 *
 * @example
 * const embedder = await localEmbedder(settings.encoder, this.context);
 */
export async function localEmbedder(
  config: EncoderConfig,
  context: EngineContext,
): Promise<Embedder> {
  const onnx = await importOnnx(import('@irserve/onnx'));
  const model = await resolveModel(context, encoderModel(config));
  const folder = model.folder;
  const lease = await onnx.sessionPoolFor(context).acquire(folder, {
    ...(model.modelFile ? { modelFile: model.modelFile } : {}),
    execution_providers: config.execution_providers,
    ...(config.device ? { device: config.device } : {}),
    intra_op_threads: config.intra_op_threads,
    head: 'hidden',
  });
  let encoder: Onnx.TextEncoder;
  try {
    encoder = new onnx.TextEncoder(lease, {
      batchSize: config.batch_size,
      ...(config.pooling ? { pooling: config.pooling } : {}),
      ...(config.normalize !== undefined ? { normalize: config.normalize } : {}),
      ...(config.max_length ? { maxLength: config.max_length } : {}),
      ...(config.output ? { output: config.output } : {}),
    });
  } catch (error) {
    await lease.release();
    throw error;
  }
  return {
    embed: (texts) => encoder.embed(texts),
    get dimension() {
      return encoder.dimension;
    },
    prefixes: lease.folder.prefixes,
    label: `the encoder ${model.source === 'local' ? 'at ' : ''}${model.label} on ${lease.session.device.providers.join(', ')}`,
    modelPath: lease.folder.path,
    close: () => encoder.close(),
  };
}
