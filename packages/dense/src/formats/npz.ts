/**
 * `.npz` archives (`np.savez`, `np.savez_compressed`): a zip of `.npy` members, stored or
 * deflated, with ZIP64 records (numpy forces them on every member). Unzipped by fflate.
 */
import { unzipSync } from 'fflate';
import { FormatError } from './errors.js';
import { readWhole } from './io.js';
import { parseNpy } from './npy.js';
import type { NpyArray } from './types.js';

/**
 * Parses `.npz` bytes into its arrays, keyed by member name without `.npy`. `file` labels
 * errors; a member's errors name `file:member.npy`.
 */
export function parseNpz(bytes: Uint8Array, file = '<buffer>'): Map<string, NpyArray> {
  let members: Record<string, Uint8Array>;
  try {
    members = unzipSync(bytes, { filter: (entry) => entry.name.endsWith('.npy') });
  } catch (error) {
    throw new FormatError(file, `not a readable .npz (zip) archive: ${(error as Error).message}`);
  }
  const arrays = new Map<string, NpyArray>();
  for (const [name, member] of Object.entries(members)) {
    // fflate returns fresh buffers for every member: they are ours to realign.
    arrays.set(
      name.slice(0, -'.npy'.length),
      parseNpy(member, `${file}:${name}`, { ownsInput: true }),
    );
  }
  return arrays;
}

/**
 * Reads every `.npy` member of an `.npz` archive.
 *
 * @example (await readNpz('shard.npz')).get('features')  // { kind: 'float', shape: [n, d], ... }
 */
export async function readNpz(path: string): Promise<Map<string, NpyArray>> {
  return parseNpz(await readWhole(path), path);
}
