/**
 * Reads an index file into memory a slice at a time, checking its CRC-32 on the way, so that a
 * server can answer between slices. The reads run on libuv's thread pool: the page faults of
 * filling fresh memory (most of the cost on a VM, about 0.9 ms per MB here) are paid there, and
 * the checksum of one slice is computed while the next is read.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { FileEntry } from './manifest.js';

/**
 * The error for an index file that cannot be opened or read, naming it and the reason.
 *
 * @example await readFile(path).catch(cannotRead(dir, 'terms.json'))
 */
export function cannotRead(dir: string, name: string): (error: NodeJS.ErrnoException) => never {
  return (error) => {
    throw new Error(`${dir}: cannot read ${name} (${error.code ?? error.message})`);
  };
}

/** Bytes read between two checks of the signal: about 5-10 ms of checksum work. */
const SLICE_BYTES = 16 * 1024 * 1024;

export interface LoadOptions {
  /** Stops the load (the index was closed); the promise then rejects with its reason. */
  signal?: AbortSignal;
  sliceBytes?: number;
}

/**
 * The bytes of `dir/name`, which must be `entry.bytes` long and match `entry.crc32`, in the array
 * `allocate` returns for that many bytes (a Uint8Array by default; a typed array of the file's
 * elements for a raw array file: no Uint8Array ever spans the whole file, so a file past 4 GiB
 * loads on Node 20, whose Uint8Arrays stop there); the error names the file and the directory.
 *
 * @example const bytes = await loadFile('indexes/splade', 'forward.terms.u32', manifest.files[...]);
 */
export async function loadFile<T extends ArrayBufferView = Uint8Array>(
  dir: string,
  name: string,
  entry: FileEntry,
  { signal, sliceBytes = SLICE_BYTES }: LoadOptions = {},
  allocate: (bytes: number) => T = (bytes) => new Uint8Array(bytes) as unknown as T,
): Promise<T> {
  signal?.throwIfAborted();
  const handle = await open(join(dir, name)).catch(cannotRead(dir, name));
  const data = allocate(entry.bytes);
  // One view per slice, never one of the whole array.
  const slice = (at: number) =>
    new Uint8Array(data.buffer, data.byteOffset + at, Math.min(sliceBytes, entry.bytes - at));
  const readAt = (at: number) => handle.read(slice(at), 0, undefined, at).then((r) => r.bytesRead);
  let pending: Promise<number> | undefined = entry.bytes > 0 ? readAt(0) : undefined;
  try {
    let crc = 0;
    for (let at = 0; at < entry.bytes;) {
      const read = await pending!;
      if (read === 0)
        throw new Error(
          `${dir}: ${name} ended after ${at} bytes, the manifest says ${entry.bytes} (a damaged or half-copied index: rebuild or copy it again)`,
        );
      const next = at + read;
      pending = next < entry.bytes ? readAt(next) : undefined;
      crc = crc32(slice(at).subarray(0, read), crc);
      signal?.throwIfAborted(); // the index was closed: stop reading it
      at = next;
    }
    if (crc >>> 0 !== entry.crc32)
      throw new Error(
        `${dir}: ${name} does not match its checksum (a damaged index: rebuild or copy it again)`,
      );
    return data;
  } finally {
    await pending?.catch(() => undefined); // a read in flight must end before its file closes
    await handle.close();
  }
}
