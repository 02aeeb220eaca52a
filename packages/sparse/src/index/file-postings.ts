/**
 * The inverted lists of an index read term by term from its files, for the seconds between the
 * moment a large index serves and the moment its lists are in memory (as Lucene reads its
 * postings through the page cache). Each list is copied into buffers reused by every read, so a
 * query costs one `pread` per term and no fresh memory.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { ARRAY_FILES, arrayFileName } from './files.js';
import type { SparseManifest } from './manifest.js';
import type { Impacts } from './types.js';

/** One term's postings: passages ascending and their impacts, valid until the next read. */
export interface TermPostings {
  passages: Uint32Array;
  impacts: Impacts;
  length: number;
}

export class FilePostings {
  readonly #offsets: Uint32Array;
  readonly #float: boolean;
  #passagesFd: number | undefined;
  #impactsFd: number | undefined;
  #passages = new Uint32Array(0);
  #impacts: Impacts = new Uint16Array(0);

  /**
   * Opens the two files of the inverted lists of the index in `dir` (as `manifest` names them);
   * `offsets` are the lists' bounds (`inverted.offsets.u32`).
   */
  constructor(dir: string, manifest: SparseManifest, offsets: Uint32Array) {
    this.#offsets = offsets;
    this.#float = manifest.impactType === 'f32';
    const name = (field: string) =>
      arrayFileName(
        ARRAY_FILES.find((file) => file.field === field)!,
        manifest.impactType,
      );
    this.#passagesFd = openSync(join(dir, name('invertedPassages')), 'r');
    try {
      this.#impactsFd = openSync(join(dir, name('invertedImpacts')), 'r');
    } catch (error) {
      closeSync(this.#passagesFd);
      throw error;
    }
  }

  /** The postings of `term`, read from the files (into buffers the next call reuses). */
  read(term: number): TermPostings {
    if (this.#passagesFd === undefined || this.#impactsFd === undefined)
      throw new Error('the index files were closed');
    const first = this.#offsets[term]!;
    const length = this.#offsets[term + 1]! - first;
    this.#reserve(length);
    const impactBytes = this.#float ? 4 : 2;
    readExactly(this.#passagesFd, this.#passages, length * 4, first * 4);
    readExactly(this.#impactsFd, this.#impacts, length * impactBytes, first * impactBytes);
    return { passages: this.#passages, impacts: this.#impacts, length };
  }

  /** Closes the files; reads fail afterwards. */
  close(): void {
    for (const fd of [this.#passagesFd, this.#impactsFd]) if (fd !== undefined) closeSync(fd);
    this.#passagesFd = this.#impactsFd = undefined;
  }

  #reserve(length: number): void {
    if (this.#passages.length >= length) return;
    const size = Math.max(length, this.#passages.length * 2);
    this.#passages = new Uint32Array(size);
    this.#impacts = this.#float ? new Float32Array(size) : new Uint16Array(size);
  }
}

function readExactly(fd: number, into: ArrayBufferView, bytes: number, position: number): void {
  const view = new Uint8Array(into.buffer, into.byteOffset, bytes);
  let done = 0;
  while (done < bytes) {
    const read = readSync(fd, view, done, bytes - done, position + done);
    if (read === 0)
      throw new Error('an index file ended before the manifest says (a damaged index)');
    done += read;
  }
}
