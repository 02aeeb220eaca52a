/** Errors of the model runtime, as irserve's catalog codes. */
import { IrserveError } from 'irserve/plugin';

/**
 * A model that cannot be used as configured: a start-up failure (ERR_CONFIG) naming the path.
 *
 * @example
 * throw modelError('/models/e5', 'model.onnx is missing');
 */
export function modelError(path: string, message: string): IrserveError {
  return new IrserveError('ERR_CONFIG', `model folder ${path}: ${message}`);
}

/**
 * A failure of one request's model work (a text the tokenizer rejects, a run that fails):
 * ERR_ENGINE, so that batch fails and the server carries on.
 *
 * @example
 * throw engineError('the tokenizer failed on text 3: ...');
 */
export function engineError(message: string, cause?: unknown): IrserveError {
  return new IrserveError('ERR_ENGINE', message, cause === undefined ? {} : { cause });
}
