/** The LSR engine's query encoder, as its config chooses (`encoder`). */
import { resolve } from 'node:path';
import { IrserveError, resolveModel, type EngineContext } from 'irserve/plugin';
import { TeiSparseEncoder } from '../encoders/tei.js';
import type { SparseEncoder } from '../encoders/types.js';
import { readVocabulary } from '../encoders/vocabulary.js';
import type * as OnnxModule from '../encoders/onnx-splade.js';
import { lsrModels, type LsrConfig } from './config.js';

/**
 * Creates the encoder of `config`, or undefined for `encoder: "none"`.
 *
 * @example await createEncoder(config, 'splade', context) // a TeiSparseEncoder
 */
export async function createEncoder(
  config: LsrConfig,
  service: string,
  context: EngineContext,
): Promise<SparseEncoder | undefined> {
  switch (config.encoder) {
    case 'none':
      return undefined;
    case 'tei':
      return new TeiSparseEncoder({
        baseUrl: config.encoder_url!,
        vocabulary: await readVocabulary(resolve(context.configDir, config.vocab_path!)),
        apiKey: config.api_key ?? process.env[config.api_key_env],
        timeoutMs: config.timeout * 1000,
        retries: config.retries,
        maxTerms: config.max_terms,
        service,
        logger: context.logger,
      });
    case 'onnx':
      return openOnnx(config, service, context);
  }
}

/** Loads @irserve/onnx only when a service asks for it, so TEI-only installs never load ONNX Runtime. */
async function openOnnx(config: LsrConfig, service: string, context: EngineContext) {
  let onnx: typeof OnnxModule;
  try {
    onnx = await import('../encoders/onnx-splade.js');
  } catch (error) {
    throw new IrserveError(
      'ERR_CONFIG',
      `service "${service}": config.encoder "onnx" needs @irserve/onnx (npm install @irserve/onnx): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    const model = await resolveModel(context, lsrModels(config)[0]!);
    return await onnx.OnnxSpladeEncoder.open({
      folder: model.folder,
      ...(model.modelFile ? { modelFile: model.modelFile } : {}),
      maxLength: config.max_length,
      maxTerms: config.max_terms,
      context,
    });
  } catch (error) {
    if (error instanceof IrserveError) throw error;
    throw new IrserveError('ERR_CONFIG', `service "${service}": ${(error as Error).message}`, {
      cause: error,
    });
  }
}
