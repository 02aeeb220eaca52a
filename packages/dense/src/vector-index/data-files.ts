/**
 * The data files of an index directory as a load reads them: each listed in the manifest,
 * present, of its size, and verified (hashed as read, page by page as paged, or by a
 * verification stamp when it is served in place).
 */
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256, sha256File, type Manifest } from './manifest.js';
import { pageChecksumsFile, pageCount } from './page-checksums.js';
import { PagedRows, type PageChecks } from './paged-rows.js';
import type { RowStore } from './row-store.js';
import { allocateRows } from './simd/shared-rows.js';
import { fileIdentity, sameIdentity, verifyWithStamp } from './verification-stamp.js';

export interface LoadOptions {
  /** Threads for usearch search (0: all cores). */
  threads?: number;
  /** Hash every data file against the manifest (default true; sizes are always checked). */
  verifyChecksums?: boolean;
  /**
   * Bytes of vectors the index may keep in memory: vectors or codes past it are read from
   * their file on demand, through a cache of this size (default: no limit, all in memory).
   */
  memoryBudget?: number;
  /** Told why a start is slow (a graph hashed in full because no stamp can be kept beside it). */
  warn?: (message: string) => void;
}

/** `verified` of a file served in place when verification is off (see `DataFiles.inPlace`). */
const NOT_VERIFIED = 'not verified (verifyChecksums: false)';

/** Reads and checks one data file: listed, present, of the listed size and hash. */
export class DataFiles {
  readonly verify: boolean;
  readonly memoryBudget: number;
  readonly #warn: ((message: string) => void) | undefined;
  /** How the file served in place was verified: by its stamp, or hashed at this start. */
  verified: string | undefined;

  constructor(
    readonly dir: string,
    readonly manifest: Manifest,
    options: LoadOptions,
  ) {
    this.verify = options.verifyChecksums ?? true;
    this.memoryBudget = options.memoryBudget ?? Infinity;
    this.#warn = options.warn;
  }

  /** Whether rows of `bytes` in all are read on demand rather than held. */
  paged(bytes: number): boolean {
    return bytes > this.memoryBudget;
  }

  async #check(name: string, expectedBytes: number | undefined): Promise<string> {
    const entry = this.manifest.files[name];
    const path = join(this.dir, name);
    if (!entry) throw new Error(`${this.dir}: manifest.json does not list the data file ${name}`);
    const size = await stat(path).then(
      (s) => s.size,
      () => -1,
    );
    if (size < 0) throw new Error(`${this.dir}: data file ${name} is missing`);
    if (size !== entry.bytes || (expectedBytes !== undefined && size !== expectedBytes)) {
      const want = expectedBytes ?? entry.bytes;
      throw new Error(
        `${this.dir}: ${name} has ${size} bytes, expected ${want} (truncated or replaced?)`,
      );
    }
    return path;
  }

  #mismatch(name: string): Error {
    return new Error(
      `${this.dir}: checksum mismatch in ${name} (the file is corrupt or was modified)`,
    );
  }

  async bytes(name: string, expectedBytes?: number): Promise<Uint8Array> {
    const data = await readFile(await this.#check(name, expectedBytes));
    if (this.verify && sha256(data) !== this.manifest.files[name]!.sha256)
      throw this.#mismatch(name);
    // A view needs 4-byte alignment; readFile's buffers have it unless taken from the pool.
    return data.byteOffset % 4 === 0 ? data : new Uint8Array(data);
  }

  async f32(name: string, floats: number): Promise<Float32Array> {
    const b = await this.bytes(name, floats * 4);
    return new Float32Array(b.buffer, b.byteOffset, floats);
  }

  async i32(name: string, ints: number): Promise<Int32Array> {
    const b = await this.bytes(name, ints * 4);
    return new Int32Array(b.buffer, b.byteOffset, ints);
  }

  /**
   * A rows file, read segment by segment (it may be larger than one array can be), or opened
   * for reads on demand when it is larger than the budget: then only its page checksums are
   * read now, each page checked as it is read (an index written before page checksums has
   * its whole file hashed first instead).
   */
  async rows(name: string, count: number, rowBytes: number): Promise<RowStore> {
    const path = await this.#check(name, count * rowBytes);
    if (this.paged(count * rowBytes)) {
      const checks = await this.#pageChecks(name, count * rowBytes, rowBytes);
      const unchanged = checks ? undefined : await this.inPlace(name, path);
      const rows = new PagedRows(path, count, rowBytes, this.memoryBudget, checks);
      await unchanged?.().catch((error: unknown) => {
        rows.close();
        throw error;
      });
      return rows;
    }
    const rows = allocateRows(count, rowBytes);
    const hash = createHash('sha256');
    const handle = await open(path, 'r');
    try {
      let position = 0;
      for (const segment of rows.segments) {
        for (let at = 0; at < segment.byteLength;) {
          const { bytesRead } = await handle.read(segment, at, segment.byteLength - at, position);
          if (bytesRead === 0) throw new Error(`${this.dir}: ${name} ended early (truncated?)`);
          at += bytesRead;
          position += bytesRead;
        }
        if (this.verify) hash.update(segment);
      }
    } finally {
      await handle.close();
    }
    if (this.verify && hash.digest('hex') !== this.manifest.files[name]!.sha256)
      throw this.#mismatch(name);
    return rows;
  }

  /** The page checksums of rows file `name` (undefined: none listed, or not verifying). */
  async #pageChecks(
    name: string,
    bytes: number,
    rowBytes: number,
  ): Promise<PageChecks | undefined> {
    const pageBytes = this.manifest.files[name]!.pageBytes;
    if (!this.verify || pageBytes === undefined) return undefined;
    if (!Number.isInteger(pageBytes) || pageBytes <= 0 || pageBytes % rowBytes !== 0)
      throw new Error(
        `${this.dir}: manifest.json gives ${name} pages of ${pageBytes} bytes, not whole rows of ${rowBytes}`,
      );
    const pages = pageCount(bytes, pageBytes);
    const table = await this.bytes(pageChecksumsFile(name), pages * 4);
    return { pageBytes, crcs: new Uint32Array(table.buffer, table.byteOffset, pages) };
  }

  /** The path of a file that native code reads whole (an HNSW graph loaded), hashed first. */
  async path(name: string): Promise<string> {
    const path = await this.#check(name, undefined);
    if (this.verify && (await sha256File(path)) !== this.manifest.files[name]!.sha256) {
      throw this.#mismatch(name);
    }
    return path;
  }

  /**
   * Verifies a file read in place, with nothing to check pages against as they are read (a
   * memory-mapped graph; rows written before page checksums): by the stamp an earlier start
   * left beside it, else by hashing it whole (verification-stamp.ts). Returns a check that it
   * is still the version verified, for once it is opened.
   */
  async inPlace(name: string, path: string): Promise<() => Promise<void>> {
    if (!this.verify) {
      this.verified = NOT_VERIFIED;
      return async () => undefined;
    }
    const { identity, how } = await verifyWithStamp(path, {
      ...{ name, sha256: this.manifest.files[name]!.sha256 },
      ...{ manifestChecksum: this.manifest.checksum, mismatch: () => this.#mismatch(name) },
      ...(this.#warn ? { warn: this.#warn } : {}),
    });
    this.verified = how;
    return async () => {
      if (!sameIdentity(identity, await fileIdentity(path)))
        throw new Error(`${path} was replaced or changed while the index was being opened`);
    };
  }

  /** The path of a file opened in place by native code (a memory-mapped graph), verified. */
  async mappedPath(name: string): Promise<{ path: string; unchanged: () => Promise<void> }> {
    const path = await this.#check(name, undefined);
    return { path, unchanged: await this.inPlace(name, path) };
  }
}
