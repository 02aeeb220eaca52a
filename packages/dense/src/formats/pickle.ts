/**
 * A safe pickle reader for what numpy writes (protocols 2 to 5): containers, scalars, strings,
 * bytes and ndarray reconstruction through an allow-list of globals (see pickle-numpy.ts).
 * Nothing is executed. Every opcode consumes input, so hostile input cannot loop; stack, memo
 * and mark depth are bounded, and every length is checked against the remaining bytes.
 */
import { PickleCursor } from './pickle-cursor.js';
import { Machine } from './pickle-machine.js';
import { OPCODES } from './pickle-opcodes.js';
import type { PickleValue } from './types.js';

export interface ParseOptions {
  /**
   * The caller hands the buffer over: large misaligned arrays may be moved within it (by up
   * to 3 bytes) and returned as views of it instead of copies. Default false.
   */
  ownsInput?: boolean;
}

/**
 * Unpickles `bytes` with the safe subset. `file` labels errors.
 *
 * @example readPickle(bytes, 'shard.npy')  // Map { 'features' => {...}, 'ids' => [...] }
 */
export function readPickle(
  bytes: Uint8Array,
  file = '<buffer>',
  options: ParseOptions = {},
): PickleValue {
  const realign = options.ownsInput ? { moved: new WeakMap<Uint8Array, Uint8Array>() } : undefined;
  const machine: Machine = new Machine(new PickleCursor(bytes, file), file, realign);
  while (machine.result === undefined) {
    if (machine.input.done()) machine.fail('truncated pickle: no STOP');
    const op = machine.input.u8();
    const handler = OPCODES.get(op);
    if (!handler) machine.fail(`unsupported pickle opcode 0x${op.toString(16).padStart(2, '0')}`);
    handler(machine);
  }
  return machine.data(machine.result);
}
