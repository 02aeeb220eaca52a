/**
 * The inverted lists of an index read term by term from its files: for the seconds between the
 * moment a large index serves and the moment its lists are in memory (as Lucene reads its
 * postings through the page cache), and for an index served under a memory budget smaller than
 * its lists, always. The array files of a version 4 index are read through a page cache of a
 * given size, every page checked against its CRC-32 before use; the raw files of versions 2 and
 * 3 by positioned reads. Each list is copied into buffers reused by every read, so a query costs
 * a read per term and no fresh memory.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { PageCache, type PagedArray } from 'irserve/plugin';
import { ARRAY_FILES, arrayFileName } from './files.js';
import { hasArrayFiles, type SparseManifest } from './manifest.js';
import { openArrayFile } from './read-arrays.js';
import type { Impacts } from './types.js';

/** One term's postings: passages ascending and their impacts, valid until the next read. */
export interface TermPostings {
  passages: Uint32Array;
  impacts: Impacts;
  length: number;
}

/** Elements of one list file, read by range into a caller's array. */
interface ListFile {
  readonly length: number;
  read(start: number, end: number, into: Uint32Array | Impacts): void;
  close(): Promise<void>;
}

/** Bytes of pages kept by default (while an index loads into memory anyway). */
const DEFAULT_CACHE_BYTES = 64 << 20;

export class FilePostings {
  readonly #offsets: Uint32Array;
  readonly #float: boolean;
  readonly #cache: PageCache | undefined;
  #files: [ListFile, ListFile] | undefined;
  #passages = new Uint32Array(0);
  #impacts: Impacts = new Uint16Array(0);

  private constructor(
    offsets: Uint32Array,
    float: boolean,
    files: [ListFile, ListFile],
    cache: PageCache | undefined,
  ) {
    this.#offsets = offsets;
    this.#float = float;
    this.#files = files;
    this.#cache = cache;
  }

  /**
   * Opens the two files of the inverted lists of the index in `dir` (as `manifest` names them);
   * `offsets` are the lists' bounds (`inverted.offsets.u32`); pages are cached up to
   * `cacheBytes`. A file that is not the one the manifest names is refused.
   */
  static async open(
    dir: string,
    manifest: SparseManifest,
    offsets: Uint32Array,
    cacheBytes: number = DEFAULT_CACHE_BYTES,
  ): Promise<FilePostings> {
    const names = (['invertedPassages', 'invertedImpacts'] as const).map((field) =>
      arrayFileName(
        ARRAY_FILES.find((file) => file.field === field)!,
        manifest.impactType,
      ),
    ) as [string, string];
    const float = manifest.impactType === 'f32';
    if (!hasArrayFiles(manifest)) {
      const raw = (name: string, bytesPerElement: number) =>
        rawListFile(join(dir, name), bytesPerElement, manifest.files[name]!.bytes);
      const passages = raw(names[0], 4);
      const impacts = await Promise.resolve()
        .then(() => raw(names[1], float ? 4 : 2))
        .catch(async (error: unknown) => {
          await passages.close();
          throw error;
        });
      return new FilePostings(offsets, float, [passages, impacts], undefined);
    }
    const passagesFile = await openArrayFile(dir, names[0], manifest.files[names[0]]!);
    const impactsFile = await openArrayFile(dir, names[1], manifest.files[names[1]]!).catch(
      async (error: unknown) => {
        await passagesFile.close();
        throw error;
      },
    );
    const cache = new PageCache({ budgetBytes: cacheBytes, pageSize: passagesFile.pageSize });
    const paged = (array: PagedArray, close: () => Promise<void>): ListFile => ({
      length: array.length,
      read: (start, end, into) => void array.read(start, end, into),
      close,
    });
    try {
      return new FilePostings(
        offsets,
        float,
        [
          paged(passagesFile.paged('invertedPassages', 'u32', cache), () => passagesFile.close()),
          paged(impactsFile.paged('invertedImpacts', manifest.impactType, cache), () =>
            impactsFile.close(),
          ),
        ],
        cache,
      );
    } catch (error) {
      await passagesFile.close();
      await impactsFile.close();
      throw error;
    }
  }

  /** Postings in the files (what the manifest's count is checked against). */
  get postings(): { passages: number; impacts: number } {
    const files = this.#open();
    return { passages: files[0].length, impacts: files[1].length };
  }

  /** Bytes of pages held in memory. */
  get residentBytes(): number {
    return this.#cache?.stats().residentBytes ?? 0;
  }

  /** The postings of `term`, read from the files (into buffers the next call reuses). */
  read(term: number): TermPostings {
    const [passages, impacts] = this.#open();
    const first = this.#offsets[term]!;
    const end = this.#offsets[term + 1]!;
    const length = end - first;
    this.#reserve(length);
    passages.read(first, end, this.#passages.subarray(0, length));
    impacts.read(first, end, this.#impacts.subarray(0, length));
    return { passages: this.#passages, impacts: this.#impacts, length };
  }

  /** Closes the files; reads fail afterwards (harmless twice). */
  async close(): Promise<void> {
    const files = this.#files;
    this.#files = undefined;
    if (files !== undefined) for (const file of files) await file.close();
  }

  #open(): [ListFile, ListFile] {
    if (this.#files === undefined) throw new Error('the index files were closed');
    return this.#files;
  }

  #reserve(length: number): void {
    if (this.#passages.length >= length) return;
    const size = Math.max(length, this.#passages.length * 2);
    this.#passages = new Uint32Array(size);
    this.#impacts = this.#float ? new Float32Array(size) : new Uint16Array(size);
  }
}

/** A raw little-endian array file (versions 2 and 3), read by positioned reads. */
function rawListFile(path: string, bytesPerElement: number, bytes: number): ListFile {
  const fd = openSync(path, 'r');
  let closed = false;
  return {
    length: bytes / bytesPerElement, // a fraction: a partial element, refused by the shape check
    read(start, end, into) {
      if (closed) throw new Error('the index files were closed');
      const bytes = (end - start) * bytesPerElement;
      const view = new Uint8Array(into.buffer, into.byteOffset, bytes);
      for (let done = 0; done < bytes;) {
        const read = readSync(fd, view, done, bytes - done, start * bytesPerElement + done);
        if (read === 0)
          throw new Error('an index file ended before the manifest says (a damaged index)');
        done += read;
      }
    },
    close() {
      if (!closed) closeSync(fd);
      closed = true;
      return Promise.resolve();
    },
  };
}
