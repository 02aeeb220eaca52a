import { IrserveError } from '../errors.js';

/** ERR_PIPELINE_PLAN: the pipeline parses but cannot run as written. */
export function planError(message: string, details?: Record<string, unknown>): IrserveError {
  return new IrserveError('ERR_PIPELINE_PLAN', message, details ? { details } : {});
}
