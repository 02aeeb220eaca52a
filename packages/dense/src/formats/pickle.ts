import type { PickleValue } from './types.js';

/** Runs the safe pickle subset over `bytes` and returns the unpickled value. */
export function readPickle(_bytes: Uint8Array, _file = '<buffer>'): PickleValue {
  throw new Error('not implemented');
}
