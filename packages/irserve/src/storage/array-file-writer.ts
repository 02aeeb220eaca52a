/**
 * Writes an array file (array-file-format.ts) as its sections are produced: appended arrays go
 * through a staging buffer (large ones straight to the file), every full page is checksummed on
 * the way, and the file appears under its name only when `finish` has written the footer, so a
 * build that fails or is stopped never leaves a file that looks whole.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import {
  DEFAULT_PAGE_SIZE,
  FORMAT,
  FORMAT_VERSION,
  MAGIC,
  MAX_PAGE_SIZE,
  MIN_PAGE_SIZE,
  TRAILER_BYTES,
  align8,
  isPowerOfTwo,
  type Footer,
  type SectionEntry,
} from './array-file-format.js';
import {
  bytesOf,
  elementBytes,
  elementTypeOf,
  type ElementType,
  type TypedArray,
} from './element-types.js';

export interface ArrayFileWriterOptions {
  /** What the file holds (the reader may insist on it), e.g. `bm25-index`. */
  kind: string;
  /** Bytes per checksummed page, a power of two from 4 KiB to 16 MiB (default 16 KiB). */
  pageSize?: number;
  /** Bytes gathered before a write (default 8 MiB; rounded to whole pages). */
  stagingBytes?: number;
}

/** What `finish` wrote. */
export interface ArrayFileSummary {
  path: string;
  bytes: number;
  /** CRC-32 of the footer, which covers the page table, which covers the data. */
  crc32: number;
  sections: SectionEntry[];
}

/** Pieces written to the file in one call when they bypass the staging buffer. */
const DIRECT_PIECE = 1 << 30;

/**
 * Writes one array file.
 *
 * @example
 * const writer = await ArrayFileWriter.create('index.bm25', { kind: 'bm25-index' });
 * await writer.writeSection('norms', norms);
 * await writer.beginSection('postingDocs', 'i32');
 * for (const chunk of chunks) await writer.append(chunk);
 * await writer.finish({ numDocs });   // or, on failure: await writer.abort()
 */
export class ArrayFileWriter {
  readonly path: string;
  readonly #temp: string;
  readonly #handle: FileHandle;
  readonly #kind: string;
  readonly #pageSize: number;
  readonly #stage: Buffer;
  #staged = 0;
  /** File offset of the staging buffer's first byte (always a page boundary). */
  #stageAt = 0;
  #pageCrcs = new Uint32Array(1024);
  #pages = 0;
  readonly #sections: SectionEntry[] = [];
  #open: { entry: SectionEntry; bytesPerElement: number } | undefined;
  #closed = false;

  private constructor(
    path: string,
    temp: string,
    handle: FileHandle,
    options: ArrayFileWriterOptions,
  ) {
    this.path = path;
    this.#temp = temp;
    this.#handle = handle;
    this.#kind = options.kind;
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!isPowerOfTwo(pageSize) || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE)
      throw new RangeError(
        `pageSize must be a power of two from ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}`,
      );
    this.#pageSize = pageSize;
    const staging = Math.max(
      pageSize,
      Math.floor((options.stagingBytes ?? 8 << 20) / pageSize) * pageSize,
    );
    this.#stage = Buffer.alloc(staging);
  }

  /** Starts writing `path` (under a temporary name beside it until `finish`). */
  static async create(path: string, options: ArrayFileWriterOptions): Promise<ArrayFileWriter> {
    const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
    const handle = await open(temp, 'w');
    try {
      return new ArrayFileWriter(path, temp, handle, options);
    } catch (error) {
      await handle.close();
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** Bytes written so far (sections and their padding). */
  get bytesWritten(): number {
    return this.#stageAt + this.#staged;
  }

  /** Starts a section of `type` elements; the previous one (if any) ends. */
  async beginSection(name: string, type: ElementType): Promise<void> {
    this.#checkOpen();
    this.endSection();
    if (this.#sections.some((s) => s.name === name))
      throw new Error(`${this.path}: section ${name} written twice`);
    const offset = align8(this.bytesWritten);
    await this.#appendBytes(new Uint8Array(offset - this.bytesWritten));
    const entry: SectionEntry = { name, type, offset, length: 0 };
    this.#sections.push(entry);
    this.#open = { entry, bytesPerElement: elementBytes(type) };
  }

  /** Appends elements to the open section (their type must be the section's). */
  async append(array: TypedArray): Promise<void> {
    this.#checkOpen();
    const open = this.#open;
    if (open === undefined) throw new Error(`${this.path}: append before beginSection`);
    if (elementTypeOf(array) !== open.entry.type)
      throw new TypeError(`${this.path}: section ${open.entry.name} holds ${open.entry.type}`);
    open.entry.length += array.length;
    // A view of more than 4 GiB cannot be made: an array that large goes in element pieces.
    const step = Math.floor(DIRECT_PIECE / open.bytesPerElement);
    for (let at = 0; at < array.length; at += step)
      await this.#appendBytes(bytesOf(array.subarray(at, Math.min(array.length, at + step))));
  }

  /** Ends the open section (a no-op when none is). */
  endSection(): void {
    this.#open = undefined;
  }

  /** One whole section. */
  async writeSection(name: string, array: TypedArray): Promise<void> {
    await this.beginSection(name, elementTypeOf(array));
    await this.append(array);
    this.endSection();
  }

  /**
   * Writes the page table and the footer (with `meta`, the writer's JSON), syncs, and renames
   * the file into place; returns what was written.
   */
  async finish(meta: unknown): Promise<ArrayFileSummary> {
    this.#checkOpen();
    this.endSection();
    try {
      const dataBytes = this.bytesWritten;
      await this.#flush();
      const table = this.#pageCrcs.subarray(0, this.#pages);
      const tableOffset = align8(dataBytes);
      const footer: Footer = {
        format: FORMAT,
        version: FORMAT_VERSION,
        kind: this.#kind,
        endian: 'le',
        pageSize: this.#pageSize,
        dataBytes,
        pageTable: { offset: tableOffset, pages: this.#pages, crc32: crc32(bytesOf(table)) },
        sections: this.#sections,
        meta: meta ?? null,
      };
      const json = Buffer.from(JSON.stringify(footer));
      const trailer = Buffer.alloc(TRAILER_BYTES);
      trailer.writeUInt32LE(json.length, 0);
      trailer.writeUInt32LE(crc32(json), 4);
      trailer.write(MAGIC, 8, 'latin1');
      const tail = Buffer.concat([
        Buffer.alloc(tableOffset - dataBytes),
        bytesOf(table),
        json,
        trailer,
      ]);
      await writeFully(this.#handle, tail, dataBytes);
      await this.#handle.datasync();
      await this.#handle.close();
      this.#closed = true;
      await rename(this.#temp, this.path);
      return {
        path: this.path,
        bytes: dataBytes + tail.length,
        crc32: crc32(json),
        sections: this.#sections,
      };
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /** Closes and removes the unfinished file; harmless after `finish` or a second time. */
  async abort(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#handle.close().catch(() => undefined);
    await rm(this.#temp, { force: true });
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error(`${this.path}: the writer is finished or aborted`);
  }

  async #appendBytes(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      // Whole pages go straight from the caller's array when nothing is staged.
      if (this.#staged === 0 && bytes.length - at >= this.#stage.length) {
        const n = Math.floor((bytes.length - at) / this.#pageSize) * this.#pageSize;
        const piece = bytes.subarray(at, at + n);
        this.#checksumPages(piece);
        await writeFully(this.#handle, piece, this.#stageAt);
        this.#stageAt += n;
        at += n;
        continue;
      }
      const n = Math.min(bytes.length - at, this.#stage.length - this.#staged);
      this.#stage.set(bytes.subarray(at, at + n), this.#staged);
      this.#staged += n;
      at += n;
      if (this.#staged === this.#stage.length) await this.#flush();
    }
  }

  /**
   * Writes the staged bytes. Before the end they fill the staging buffer, whole pages, so the
   * next flush starts on a page boundary too.
   */
  async #flush(): Promise<void> {
    const staged = this.#stage.subarray(0, this.#staged);
    this.#checksumPages(staged);
    await writeFully(this.#handle, staged, this.#stageAt);
    this.#stageAt += this.#staged;
    this.#staged = 0;
  }

  /** Appends the CRC-32 of each page of `bytes` (which starts on a page boundary). */
  #checksumPages(bytes: Uint8Array): void {
    const size = this.#pageSize;
    const pages = Math.ceil(bytes.length / size);
    if (this.#pages + pages > this.#pageCrcs.length) {
      const grown = new Uint32Array(Math.max(this.#pages + pages, this.#pageCrcs.length * 2));
      grown.set(this.#pageCrcs.subarray(0, this.#pages));
      this.#pageCrcs = grown;
    }
    for (let at = 0; at < bytes.length; at += size)
      this.#pageCrcs[this.#pages++] = crc32(bytes.subarray(at, at + size));
  }
}

async function writeFully(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const n = Math.min(DIRECT_PIECE, bytes.length - done);
    const { bytesWritten } = await handle.write(bytes, done, n, position + done);
    done += bytesWritten;
  }
}
