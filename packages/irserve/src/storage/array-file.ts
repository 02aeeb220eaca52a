/**
 * Reads an array file (array-file-format.ts): the footer and page table at open (a few KB to
 * a few MB, checked), then each section as the caller needs it: whole into one typed array, in
 * chunks (for arrays of more elements than a typed array holds), or paged on demand through a
 * page cache. Every byte used has been checked against its page's CRC-32 first.
 */
import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import {
  ArrayFileError,
  MAGIC,
  TRAILER_BYTES,
  parseFooter,
  type Footer,
  type SectionEntry,
} from './array-file-format.js';
import {
  CONSTRUCTORS,
  MAX_ARRAY_ELEMENTS,
  type ArrayOf,
  type ElementType,
  type TypedArray,
} from './element-types.js';
import type { PageCache } from './page-cache.js';
import { PagedArray, type PagedSource } from './paged-array.js';

export interface ReadOptions {
  /** Stops the read (the rejection carries the signal's reason). */
  signal?: AbortSignal;
  /**
   * Bytes read and checked between two turns of the event loop (default 4 MiB: a few ms of
   * checksum work), so that a server answers while a large section loads.
   */
  sliceBytes?: number;
}

export interface ChunkOptions extends ReadOptions {
  /** Most bytes per chunk (default 1 GiB). */
  maxChunkBytes?: number;
  /** Chunk lengths are multiples of this many elements (a row of a matrix; default 1). */
  multipleOf?: number;
}

const DEFAULT_SLICE = 4 << 20;

/**
 * @example
 * const file = await ArrayFile.open('index.bm25', { kind: 'bm25-index' });
 * const norms = await file.read('norms', 'u8');
 * const docs = file.paged('postingDocs', 'i32', cache);
 * await file.close();
 */
export class ArrayFile implements PagedSource {
  readonly path: string;
  readonly bytes: number;
  readonly footer: Footer;
  readonly pageCrcs: Uint32Array;
  /**
   * SHA-256 (hex) of the footer and the page table: it changes with any byte of the file, so it
   * names the file's content (for cache keys) without reading the data.
   */
  readonly identity: string;
  /** The CRC-32 of the footer (what `ArrayFileWriter.finish` reported as the file's crc32). */
  readonly footerCrc: number;
  readonly #handle: FileHandle;
  readonly #paged: PagedArray[] = [];

  private constructor(
    path: string,
    handle: FileHandle,
    bytes: number,
    read: { footer: Footer; footerCrc: number; pageCrcs: Uint32Array },
  ) {
    const { footer, pageCrcs: crcs } = read;
    this.path = path;
    this.#handle = handle;
    this.bytes = bytes;
    this.footer = footer;
    this.footerCrc = read.footerCrc;
    this.pageCrcs = crcs;
    this.identity = createHash('sha256')
      .update(JSON.stringify(footer))
      .update(new Uint8Array(crcs.buffer))
      .digest('hex');
  }

  /**
   * Opens `path` and checks its footer and page table (and, with `kind`, what it holds);
   * throws ArrayFileError naming the file and the fault.
   */
  static async open(path: string, { kind }: { kind?: string } = {}): Promise<ArrayFile> {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      const { footer, crc32: footerCrc } = await readFooter(path, handle, size);
      if (kind !== undefined && footer.kind !== kind)
        throw new ArrayFileError(path, 'foreign', `holds ${footer.kind}, not ${kind}`);
      const crcs = new Uint32Array(footer.pageTable.pages);
      await readExactly(path, handle, new Uint8Array(crcs.buffer), footer.pageTable.offset);
      if (crc32(new Uint8Array(crcs.buffer)) !== footer.pageTable.crc32)
        throw new ArrayFileError(
          path,
          'damaged',
          'its page table does not match its checksum (a damaged file)',
        );
      return new ArrayFile(path, handle, size, { footer, footerCrc, pageCrcs: crcs });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  get fd(): number {
    return this.#handle.fd;
  }
  get pageSize(): number {
    return this.footer.pageSize;
  }
  get dataBytes(): number {
    return this.footer.dataBytes;
  }
  get meta(): unknown {
    return this.footer.meta;
  }

  has(name: string): boolean {
    return this.footer.sections.some((s) => s.name === name);
  }

  /** The section `name`, which must hold `type` elements. */
  section<K extends ElementType>(name: string, type: K): SectionEntry & { type: K } {
    const entry = this.footer.sections.find((s) => s.name === name);
    if (entry === undefined)
      throw new ArrayFileError(this.path, 'misuse', `has no section ${name}`);
    if (entry.type !== type)
      throw new ArrayFileError(
        this.path,
        'misuse',
        `section ${name} holds ${entry.type}, not ${type}`,
      );
    return entry as SectionEntry & { type: K };
  }

  /** A whole section in one typed array, checked. */
  async read<K extends ElementType>(
    name: string,
    type: K,
    options: ReadOptions = {},
  ): Promise<ArrayOf[K]> {
    const entry = this.section(name, type);
    if (entry.length > MAX_ARRAY_ELEMENTS)
      throw new ArrayFileError(
        this.path,
        'misuse',
        `section ${name} has too many elements for one array: read it in chunks`,
      );
    const array = new CONSTRUCTORS[type](entry.length);
    await this.#readElements(entry, 0, array, options);
    return array;
  }

  /** Elements [start, end) of a section in a new typed array, checked. */
  async readRange<K extends ElementType>(
    name: string,
    type: K,
    start: number,
    end: number,
    options: ReadOptions = {},
  ): Promise<ArrayOf[K]> {
    const entry = this.section(name, type);
    if (!(start >= 0 && start <= end && end <= entry.length))
      throw new RangeError(`${this.path}: range [${start}, ${end}) outside section ${name}`);
    const array = new CONSTRUCTORS[type](end - start);
    await this.#readElements(entry, start, array, options);
    return array;
  }

  /** A whole section in chunks of at most `maxChunkBytes` (a multiple of `multipleOf` elements). */
  async readChunks<K extends ElementType>(
    name: string,
    type: K,
    options: ChunkOptions = {},
  ): Promise<ArrayOf[K][]> {
    const entry = this.section(name, type);
    const bytesPer = CONSTRUCTORS[type].BYTES_PER_ELEMENT;
    const multiple = options.multipleOf ?? 1;
    const perChunk =
      Math.floor((options.maxChunkBytes ?? 1 << 30) / bytesPer / multiple) * multiple;
    if (perChunk < 1) throw new RangeError('maxChunkBytes is smaller than one multiple');
    if (entry.length === 0) return [new CONSTRUCTORS[type](0)];
    const chunks: ArrayOf[K][] = [];
    for (let at = 0; at < entry.length; at += perChunk) {
      const chunk = new CONSTRUCTORS[type](Math.min(perChunk, entry.length - at));
      await this.#readElements(entry, at, chunk, options);
      chunks.push(chunk);
    }
    return chunks;
  }

  /** A section read on demand through `cache` (closed with the file). */
  paged<K extends ElementType>(name: string, type: K, cache: PageCache): PagedArray<K> {
    const paged = new PagedArray<K>(this, this.section(name, type), cache);
    this.#paged.push(paged);
    return paged;
  }

  /** Reads and checks every page (a whole-file check that keeps nothing in memory). */
  async verify(options: ReadOptions = {}): Promise<void> {
    await this.#readBytes(0, this.dataBytes, () => undefined, options);
  }

  /** Throws ArrayFileError when page `page` (its `bytes`) does not match its checksum. */
  checkPage(page: number, bytes: Uint8Array): void {
    if (crc32(bytes) === this.pageCrcs[page]) return;
    const from = page * this.pageSize;
    throw new ArrayFileError(
      this.path,
      'damaged',
      `bytes ${from}-${from + bytes.length} do not match their checksum (a damaged file: rebuild it or copy it again)`,
    );
  }

  /** Closes the file and the paged arrays made from it. */
  async close(): Promise<void> {
    for (const paged of this.#paged) paged.close();
    await this.#handle.close();
  }

  /** Elements [from, from + into.length) of a section into `into`. */
  async #readElements(entry: SectionEntry, from: number, into: TypedArray, options: ReadOptions) {
    const bytesPer = into.BYTES_PER_ELEMENT;
    const start = entry.offset + from * bytesPer;
    await this.#readBytes(
      start,
      start + into.length * bytesPer,
      (at, bytes) => {
        // A view of the target per slice: one of the whole array could pass 4 GiB.
        new Uint8Array(into.buffer, into.byteOffset + (at - start), bytes.length).set(bytes);
      },
      options,
    );
  }

  /**
   * Reads bytes [start, end) of the data in page-aligned slices, checks every page, and hands
   * each slice's part of the range to `use` (its position in the file, its bytes). One slice is
   * read while the previous one is checked.
   */
  async #readBytes(
    start: number,
    end: number,
    use: (at: number, bytes: Uint8Array) => void,
    { signal, sliceBytes = DEFAULT_SLICE }: ReadOptions,
  ): Promise<void> {
    signal?.throwIfAborted();
    if (start >= end) return;
    const size = this.pageSize;
    const slice = Math.max(1, Math.floor(sliceBytes / size)) * size;
    const firstPage = Math.floor(start / size);
    const stopAt = Math.min(this.dataBytes, Math.ceil(end / size) * size);
    const buffers = [new Uint8Array(slice), new Uint8Array(slice)];
    const readSlice = (at: number, i: number) => {
      const bytes = buffers[i % 2]!.subarray(0, Math.min(slice, stopAt - at));
      return readExactly(this.path, this.#handle, bytes, at).then(() => bytes);
    };
    let pending: Promise<Uint8Array> | undefined = readSlice(firstPage * size, 0);
    try {
      for (let at = firstPage * size, i = 0; at < stopAt; at += slice, i++) {
        const bytes = await pending!;
        pending = at + slice < stopAt ? readSlice(at + slice, i + 1) : undefined;
        for (let p = 0; p * size < bytes.length; p++)
          this.checkPage(at / size + p, bytes.subarray(p * size, (p + 1) * size));
        const from = Math.max(start, at);
        const to = Math.min(end, at + bytes.length);
        use(from, bytes.subarray(from - at, to - at));
        if (pending !== undefined) {
          await nextTurn();
          signal?.throwIfAborted();
        }
      }
    } finally {
      await pending?.catch(() => undefined); // a read in flight ends before its buffer is reused
    }
  }
}

async function readFooter(
  path: string,
  handle: FileHandle,
  size: number,
): Promise<{ footer: Footer; crc32: number }> {
  const notOne = () =>
    new ArrayFileError(path, 'foreign', 'not an irserve array file, or truncated (no trailer)');
  if (size < TRAILER_BYTES) throw notOne();
  const trailer = Buffer.alloc(TRAILER_BYTES);
  await readExactly(path, handle, trailer, size - TRAILER_BYTES);
  if (trailer.toString('latin1', 8) !== MAGIC) throw notOne();
  const length = trailer.readUInt32LE(0);
  if (length > size - TRAILER_BYTES) throw notOne();
  const json = Buffer.alloc(length);
  await readExactly(path, handle, json, size - TRAILER_BYTES - length);
  const footerCrc = trailer.readUInt32LE(4);
  if (crc32(json) !== footerCrc)
    throw new ArrayFileError(
      path,
      'damaged',
      'its footer does not match its checksum (a damaged file)',
    );
  return { footer: parseFooter(path, json.toString('utf8'), size - length), crc32: footerCrc };
}

async function readExactly(path: string, handle: FileHandle, into: Uint8Array, position: number) {
  for (let done = 0; done < into.length;) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0)
      throw new ArrayFileError(
        path,
        'damaged',
        `ends before byte ${position + into.length} (truncated)`,
      );
    done += bytesRead;
  }
}
