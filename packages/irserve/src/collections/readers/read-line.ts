import type { FileHandle } from 'node:fs/promises';

/** Reads exactly `length` bytes at `position` (a positioned read: no shared file position). */
export async function readExactly(
  handle: FileHandle,
  position: number,
  length: number,
): Promise<Buffer> {
  // fs.read asserts on these natively (a crash, not an exception): check them here first.
  if (
    !Number.isSafeInteger(position) ||
    position < 0 ||
    !Number.isSafeInteger(length) ||
    length < 0
  )
    throw new RangeError(`invalid read of ${length} bytes at ${position}`);
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/**
 * Reads the line that starts at `position`, up to (not including) its newline or the end of the
 * file. `position` must be a line start: when the byte before it is not a newline, returns
 * undefined.
 */
export async function readLineAt(
  handle: FileHandle,
  position: number,
  chunk = 64 * 1024,
): Promise<string | undefined> {
  if (position > 0) {
    const before = await readExactly(handle, position - 1, 1);
    if (before[0] !== 10) return undefined;
  }
  const parts: Buffer[] = [];
  let at = position;
  for (;;) {
    const buf = await readExactly(handle, at, chunk);
    if (buf.length === 0 && at === position) return undefined;
    const nl = buf.indexOf(10);
    if (nl >= 0) {
      parts.push(buf.subarray(0, nl));
      break;
    }
    parts.push(buf);
    if (buf.length < chunk) break;
    at += buf.length;
    chunk *= 2;
  }
  return Buffer.concat(parts).toString('utf8');
}
