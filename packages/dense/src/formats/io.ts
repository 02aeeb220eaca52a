/**
 * Whole-file reads without `fs.readFile`'s 2 GiB ceiling: embedding shards of a million
 * 1024-d vectors are 4 GB. The file lands in one Uint8Array that the parsers view in place.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Largest single read; the kernel returns at most about 2 GiB per call anyway. */
const CHUNK = 1 << 30;

/** Reads the whole file at `path`. */
export async function readWhole(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    // A file that shrank while we read it yields what exists: the parsers report truncation.
    return await readAt(handle, 0, size);
  } finally {
    await handle.close();
  }
}

/** `length` bytes at `position` of an open file (fewer at its end). */
export async function readAt(
  handle: FileHandle,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const { bytesRead } = await handle.read(bytes, at, Math.min(CHUNK, length - at), position + at);
    if (bytesRead === 0) return bytes.subarray(0, at);
    at += bytesRead;
  }
  return bytes;
}

/** Writes `chunks` one after the other to `path` (replacing it), without joining them first. */
export async function writeChunks(path: string, chunks: readonly Uint8Array[]): Promise<void> {
  const handle = await open(path, 'w');
  try {
    for (const chunk of chunks) {
      let at = 0;
      while (at < chunk.byteLength) {
        const { bytesWritten } = await handle.write(
          chunk,
          at,
          Math.min(CHUNK, chunk.byteLength - at),
        );
        at += bytesWritten;
      }
    }
  } finally {
    await handle.close();
  }
}
