/**
 * Checks an index's files against the CRC-32 of their manifest entries, all at once or a slice
 * at a time with the event loop let go between slices, so that a server can answer while a large
 * index is checked.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { crc32 } from 'node:zlib';

/** A file read from the index, and the checksum its manifest gives. */
export interface ReadFile {
  name: string;
  data: Uint8Array;
  crc32: number;
}

/** Bytes checked between two turns of the event loop: about 5-10 ms of CPU. */
const SLICE_BYTES = 16 * 1024 * 1024;

/**
 * Resolves when every file matches; rejects naming the first that does not (and the directory).
 *
 * @example await verifyChecksums('indexes/splade', files, true);
 */
export async function verifyChecksums(
  dir: string,
  files: readonly ReadFile[],
  sliced: boolean,
  { sliceBytes = SLICE_BYTES, signal }: { sliceBytes?: number; signal?: AbortSignal } = {},
): Promise<void> {
  for (const file of files) {
    let crc = 0;
    for (let at = 0; at < file.data.byteLength; at += sliceBytes) {
      crc = crc32(file.data.subarray(at, at + sliceBytes), crc);
      if (sliced) {
        await nextTurn();
        signal?.throwIfAborted(); // the index was closed: stop checking it
      }
    }
    if (crc >>> 0 !== file.crc32)
      throw new Error(
        `${dir}: ${file.name} does not match its checksum (a damaged index: rebuild or copy it again)`,
      );
  }
}
