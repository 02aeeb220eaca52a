/**
 * Sequential writing and reading of large files in bounded memory: a writer that buffers,
 * hashes (sha256, as index manifests list) and never needs the whole file in one array, and a
 * reader that hands out the next bytes of a file through a fixed buffer.
 */
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { PageChecksummer } from '../vector-index/page-checksums.js';

/** Bytes buffered before a write: large enough for sequential speed, small against budgets. */
const WRITE_BUFFER = 4 << 20;

/** Size and sha256 of a written file (a manifest's file entry), with its page CRCs if asked. */
export interface WrittenFile {
  bytes: number;
  sha256: string;
  pages?: { pageBytes: number; crcs: Uint32Array };
}

/**
 * Appends bytes to a new file through a buffer, hashing them: sha256 for index files, or the
 * cheaper CRC-32 for a build's own scratch files.
 */
export class DataFileWriter {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #hash: Hash | undefined;
  readonly #buffer: Uint8Array;
  readonly #pages: PageChecksummer | undefined;
  #used = 0;
  #bytes = 0;
  /** The CRC-32 of the bytes written so far (in 'crc32' mode). */
  crc = 0;

  private constructor(
    path: string,
    handle: FileHandle,
    bufferBytes: number,
    { sha256, pageBytes }: { sha256: boolean; pageBytes: number | undefined },
  ) {
    this.path = path;
    this.#handle = handle;
    this.#buffer = new Uint8Array(bufferBytes);
    this.#hash = sha256 ? createHash('sha256') : undefined;
    this.#pages = pageBytes === undefined ? undefined : new PageChecksummer(pageBytes);
  }

  /**
   * Creates (or truncates) `path`; with `pageBytes`, also takes the CRC-32 of every page of
   * that many bytes (a rows file's page checksums).
   */
  static async create(
    path: string,
    {
      bufferBytes = WRITE_BUFFER,
      digest = 'sha256',
      pageBytes,
    }: { bufferBytes?: number; digest?: 'sha256' | 'crc32'; pageBytes?: number } = {},
  ): Promise<DataFileWriter> {
    const handle = await open(path, 'w');
    return new DataFileWriter(path, handle, bufferBytes, {
      sha256: digest === 'sha256',
      pageBytes,
    });
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends `data` (any typed array's bytes). */
  async write(data: ArrayBufferView): Promise<void> {
    // Nothing to add; and Node 20's zlib.crc32 answers 0, not the running CRC, for a view of
    // an empty ArrayBuffer (an empty list's ids in a spilled run), which damaged the run.
    if (data.byteLength === 0) return;
    let bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (this.#hash) this.#hash.update(bytes);
    else this.crc = crc32(bytes, this.crc);
    this.#pages?.update(bytes);
    this.#bytes += bytes.byteLength;
    while (bytes.byteLength > 0) {
      if (this.#used === 0 && bytes.byteLength >= this.#buffer.byteLength) {
        await writeAll(this.#handle, bytes);
        return;
      }
      const n = Math.min(bytes.byteLength, this.#buffer.byteLength - this.#used);
      this.#buffer.set(bytes.subarray(0, n), this.#used);
      this.#used += n;
      bytes = bytes.subarray(n);
      if (this.#used === this.#buffer.byteLength) await this.#flush();
    }
  }

  /** Flushes and closes; resolves to the file's size and sha256 (and page CRCs). */
  async close(): Promise<WrittenFile> {
    try {
      await this.#flush();
    } finally {
      await this.#handle.close();
    }
    const written = { bytes: this.#bytes, sha256: this.#hash?.digest('hex') ?? '' };
    const pages = this.#pages;
    return pages
      ? { ...written, pages: { pageBytes: pages.pageBytes, crcs: pages.finish() } }
      : written;
  }

  /** Closes without flushing (the file is about to be removed). */
  async abort(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
  }

  async #flush(): Promise<void> {
    if (this.#used === 0) return;
    await writeAll(this.#handle, this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }
}

async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.byteLength;) {
    const { bytesWritten } = await handle.write(bytes, at, bytes.byteLength - at);
    at += bytesWritten;
  }
}

/** Hands out a file's bytes in order through one buffer; `take` views are valid until the next. */
export class SequentialReader {
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #buffer: Uint8Array;
  /** Read position in the file of the buffer's end. */
  #position = 0;
  #start = 0;
  #end = 0;
  /** Bytes handed out so far. */
  consumed = 0;
  /** The CRC-32 of the bytes handed out so far. */
  crc = 0;

  private constructor(path: string, handle: FileHandle, bufferBytes: number) {
    this.path = path;
    this.#handle = handle;
    this.#buffer = new Uint8Array(bufferBytes);
  }

  static async open(path: string, bufferBytes: number): Promise<SequentialReader> {
    return new SequentialReader(path, await open(path, 'r'), Math.max(4096, bufferBytes));
  }

  /**
   * The next `n` bytes: a view of the buffer, or of a new array when `n` passes the buffer's
   * size. Throws when the file ends first.
   */
  async take(n: number): Promise<Uint8Array> {
    if (n > this.#buffer.byteLength) {
      const out = new Uint8Array(n);
      for (let at = 0; at < n;) {
        const piece = await this.take(Math.min(this.#buffer.byteLength, n - at));
        out.set(piece, at);
        at += piece.byteLength;
      }
      return out;
    }
    if (this.#end - this.#start < n) await this.#refill(n);
    const view = this.#buffer.subarray(this.#start, this.#start + n);
    this.#start += n;
    this.consumed += n;
    this.crc = crc32(view, this.crc);
    return view;
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }

  async #refill(n: number): Promise<void> {
    this.#buffer.copyWithin(0, this.#start, this.#end);
    this.#end -= this.#start;
    this.#start = 0;
    while (this.#end < n) {
      const { bytesRead } = await this.#handle.read(
        this.#buffer,
        this.#end,
        this.#buffer.byteLength - this.#end,
        this.#position,
      );
      if (bytesRead === 0) throw new Error(`${this.path} ended early (truncated?)`);
      this.#end += bytesRead;
      this.#position += bytesRead;
    }
  }
}
