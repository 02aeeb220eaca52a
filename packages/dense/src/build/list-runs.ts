/**
 * Inverted lists built in bounded memory, as inverted-index builders do: entries (a list
 * number, an id and a fixed-size payload) gather in a buffer; a full buffer is written to a
 * run file in list order (ids ascending within a list, since they arrive in order); at the end
 * the runs are merged list by list, each run read front to back. The result does not depend on
 * how many runs there were. Each run ends with the CRC-32 of its bytes, checked as it is read
 * back, so a damaged spill fails the build instead of the index.
 */
import { DataFileWriter, SequentialReader } from './data-file.js';

/** Receives the lists in order: each list's ids (int32, little-endian) and payloads. */
export interface ListSink {
  list(list: number, ids: Uint8Array, payloads: Uint8Array): Promise<void>;
}

const RUN_MAGIC = 'IRSRUN01';
/** Magic, then nlist, payload bytes and entry count (uint32 each). */
const HEADER_BYTES = 8 + 12;

/** Entries gathered in memory, `capacity` at most. */
export class ListRunBuffer {
  readonly nlist: number;
  readonly payloadBytes: number;
  readonly capacity: number;
  readonly #labels: Int32Array;
  readonly #ids: Int32Array;
  readonly #payloads: Uint8Array;
  #size = 0;

  constructor(nlist: number, payloadBytes: number, capacity: number) {
    this.nlist = nlist;
    this.payloadBytes = payloadBytes;
    this.capacity = Math.max(1, capacity);
    this.#labels = new Int32Array(this.capacity);
    this.#ids = new Int32Array(this.capacity);
    this.#payloads = new Uint8Array(this.capacity * payloadBytes);
  }

  /** Memory one entry takes in the buffer (and in the sort's order array). */
  static entryBytes(payloadBytes: number): number {
    return 12 + payloadBytes;
  }

  get size(): number {
    return this.#size;
  }

  get free(): number {
    return this.capacity - this.#size;
  }

  /** Adds `count` entries from `from` of the given arrays; at most `free` of them. */
  add(labels: Int32Array, ids: Int32Array, payloads: Uint8Array, from: number, count: number) {
    if (count > this.free) throw new RangeError(`${count} entries for ${this.free} free slots`);
    const p = this.payloadBytes;
    this.#labels.set(labels.subarray(from, from + count), this.#size);
    this.#ids.set(ids.subarray(from, from + count), this.#size);
    this.#payloads.set(payloads.subarray(from * p, (from + count) * p), this.#size * p);
    this.#size += count;
  }

  /** Per-list counts, and the entries in list order (stable: ids stay in arrival order). */
  sorted(): { counts: Int32Array; order: Int32Array } {
    const counts = new Int32Array(this.nlist);
    for (let i = 0; i < this.#size; i++) counts[this.#labels[i]!]!++;
    const next = new Int32Array(this.nlist);
    for (let l = 1; l < this.nlist; l++) next[l] = next[l - 1]! + counts[l - 1]!;
    const order = new Int32Array(this.#size);
    for (let i = 0; i < this.#size; i++) order[next[this.#labels[i]!]!++] = i;
    return { counts, order };
  }

  /** Each list's ids and payloads, in list order. */
  async writeLists(sink: ListSink): Promise<void> {
    const { counts, order } = this.sorted();
    const p = this.payloadBytes;
    let at = 0;
    for (let l = 0; l < this.nlist; l++) {
      const count = counts[l]!;
      const ids = new Int32Array(count);
      const payloads = new Uint8Array(count * p);
      for (let i = 0; i < count; i++) {
        const e = order[at + i]!;
        ids[i] = this.#ids[e]!;
        payloads.set(this.#payloads.subarray(e * p, (e + 1) * p), i * p);
      }
      at += count;
      await sink.list(l, new Uint8Array(ids.buffer), payloads);
    }
  }

  /** Writes the buffer as a run file (see the module comment) and empties it. */
  async spill(path: string): Promise<void> {
    const writer = await DataFileWriter.create(path, { digest: 'crc32' });
    try {
      const header = new DataView(new ArrayBuffer(HEADER_BYTES));
      for (let i = 0; i < RUN_MAGIC.length; i++) header.setUint8(i, RUN_MAGIC.charCodeAt(i));
      header.setUint32(8, this.nlist, true);
      header.setUint32(12, this.payloadBytes, true);
      header.setUint32(16, this.#size, true);
      await writer.write(header);
      const { counts } = this.sorted();
      await writer.write(counts);
      await this.writeLists({
        list: async (_l, ids, payloads) => {
          await writer.write(ids);
          await writer.write(payloads);
        },
      });
      await writer.write(Uint32Array.of(writer.crc >>> 0));
    } finally {
      await writer.close();
    }
    this.#size = 0;
  }
}

/** A run file open for merging: its per-list counts and its reader. */
interface OpenRun {
  reader: SequentialReader;
  counts: Int32Array;
}

function damaged(path: string, why: string): Error {
  return new Error(`spill file ${path} is damaged (${why}); the build stopped: run it again`);
}

async function openRun(
  path: string,
  nlist: number,
  payloadBytes: number,
  bufferBytes: number,
): Promise<OpenRun> {
  const reader = await SequentialReader.open(path, bufferBytes);
  try {
    const header = await reader.take(HEADER_BYTES);
    const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
    const magic = String.fromCharCode(...header.subarray(0, 8));
    if (magic !== RUN_MAGIC) throw damaged(path, 'not a run file');
    if (view.getUint32(8, true) !== nlist || view.getUint32(12, true) !== payloadBytes)
      throw damaged(path, 'its list count or entry size differs from the build');
    const counts = new Int32Array((await reader.take(nlist * 4)).slice().buffer);
    return { reader, counts };
  } catch (error) {
    await reader.close();
    throw error instanceof Error && error.message.includes('ended early')
      ? damaged(path, 'truncated')
      : error;
  }
}

/**
 * Merges run files into `sink`, list by list; each run gets `bufferBytes` of read buffer.
 *
 * @example await mergeRuns(['run-0', 'run-1'], 1024, 64, sink, 8 << 20)
 */
export async function mergeRuns(
  paths: readonly string[],
  nlist: number,
  payloadBytes: number,
  sink: ListSink,
  bufferBytes: number,
): Promise<void> {
  const runs: OpenRun[] = [];
  try {
    for (const path of paths) runs.push(await openRun(path, nlist, payloadBytes, bufferBytes));
    for (let l = 0; l < nlist; l++) {
      for (const { reader, counts } of runs) {
        const count = counts[l]!;
        if (count === 0) continue;
        const ids = (await reader.take(count * 4)).slice();
        await sink.list(l, ids, await reader.take(count * payloadBytes));
      }
    }
    for (const { reader } of runs) await checkTrailer(reader);
  } catch (error) {
    const path = runs.find(({ reader }) => String(error).includes(reader.path))?.reader.path;
    throw path && String(error).includes('ended early') ? damaged(path, 'truncated') : error;
  } finally {
    for (const { reader } of runs) await reader.close();
  }
}

async function checkTrailer(reader: SequentialReader): Promise<void> {
  const crc = reader.crc >>> 0;
  const trailer = await reader.take(4);
  const stored = new DataView(trailer.buffer, trailer.byteOffset, 4).getUint32(0, true);
  if (stored !== crc) throw damaged(reader.path, 'its checksum does not match');
}
