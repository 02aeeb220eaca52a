/**
 * The in-memory id -> line map of a JSONL corpus, stored in a few typed arrays (no per-document
 * JS objects): ids concatenated in one buffer, line starts and lengths, and an open-addressing
 * hash table of document indexes. 3M documents take roughly 40 bytes each plus their ids.
 */

/** FNV-1a over bytes `[start, end)` of `bytes`. */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Smallest power of two >= 2n (load factor <= 0.5), at least 16. */
export function tableSizeFor(count: number): number {
  let size = 16;
  while (size < count * 2) size *= 2;
  return size;
}

export interface OffsetMapArrays {
  /** Document count. */
  count: number;
  /** Every id's UTF-8 bytes, concatenated. */
  idBytes: Uint8Array;
  /** `count + 1` starts into `idBytes`. */
  idStart: Uint32Array;
  /** Byte offset of each line in the corpus. */
  lineStart: Float64Array;
  /** Byte length of each line, without its newline. */
  lineLength: Uint32Array;
  /** Hash table: document index + 1, 0 for an empty slot; size a power of two. */
  table: Uint32Array;
}

export class OffsetMap {
  readonly arrays: OffsetMapArrays;
  readonly #mask: number;

  constructor(arrays: OffsetMapArrays) {
    this.arrays = arrays;
    this.#mask = arrays.table.length - 1;
  }

  get size(): number {
    return this.arrays.count;
  }

  /** The index of the document with this id (UTF-8 bytes), or -1. */
  indexOf(id: Uint8Array): number {
    const { table, idBytes, idStart } = this.arrays;
    let slot = hashBytes(id, 0, id.length) & this.#mask;
    for (;;) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const index = entry - 1;
      if (sameBytes(idBytes, idStart[index]!, idStart[index + 1]!, id)) return index;
      slot = (slot + 1) & this.#mask;
    }
  }

  /** The line of the document with this id, or undefined. */
  find(id: string): { start: number; length: number; index: number } | undefined {
    const index = this.indexOf(Buffer.from(id, 'utf8'));
    if (index < 0) return undefined;
    return { start: this.arrays.lineStart[index]!, length: this.arrays.lineLength[index]!, index };
  }

  /** The id of document `index`. */
  idAt(index: number): string {
    const { idBytes, idStart } = this.arrays;
    return Buffer.from(
      idBytes.buffer,
      idBytes.byteOffset + idStart[index]!,
      idStart[index + 1]! - idStart[index]!,
    ).toString('utf8');
  }

  /** Whether document `index` is the one its id maps to (false for an overridden duplicate). */
  isLive(index: number): boolean {
    const { idBytes, idStart } = this.arrays;
    return this.indexOf(idBytes.subarray(idStart[index], idStart[index + 1])) === index;
  }
}

function sameBytes(pool: Uint8Array, start: number, end: number, id: Uint8Array): boolean {
  if (end - start !== id.length) return false;
  for (let i = 0; i < id.length; i++) if (pool[start + i] !== id[i]) return false;
  return true;
}

/**
 * Fills the hash table; a later duplicate replaces the earlier one (last occurrence wins, as in
 * RoutIR). Returns the number of duplicates. Yields to the event loop every `yieldEvery` inserts.
 */
export async function fillTable(
  arrays: Omit<OffsetMapArrays, 'table'>,
  hashes: Uint32Array,
  yieldTo: () => Promise<void>,
  yieldEvery = 500_000,
): Promise<{ table: Uint32Array; duplicates: number; firstDuplicate: number }> {
  const table = new Uint32Array(tableSizeFor(arrays.count));
  const mask = table.length - 1;
  const { idBytes, idStart } = arrays;
  let duplicates = 0;
  let firstDuplicate = -1;
  for (let index = 0; index < arrays.count; index++) {
    if (index % yieldEvery === yieldEvery - 1) await yieldTo();
    const start = idStart[index]!;
    const end = idStart[index + 1]!;
    let slot = hashes[index]! & mask;
    for (;;) {
      const entry = table[slot]!;
      if (entry === 0) {
        table[slot] = index + 1;
        break;
      }
      const other = entry - 1;
      if (sameBytes(idBytes, idStart[other]!, idStart[other + 1]!, idBytes.subarray(start, end))) {
        table[slot] = index + 1;
        duplicates++;
        if (firstDuplicate < 0) firstDuplicate = index;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return { table, duplicates, firstDuplicate };
}
